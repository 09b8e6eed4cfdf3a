#!/bin/sh
# Runs the cell's Python (the one that imports the cell's torch): $OPMATRIX_PYTHON, else python3.
exec "${OPMATRIX_PYTHON:-python3}" "$@"
