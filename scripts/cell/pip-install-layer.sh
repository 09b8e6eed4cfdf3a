#!/usr/bin/env bash
# Install one image layer's pins (a file of name==version lines, from wheel-layers.py) into a
# venv, exactly those and nothing they depend on: the resolution was done once, for the whole
# torch, before the first layer. An empty file installs nothing (a torch without cuSPARSELt).
#
# usage: pip-install-layer.sh PYTHON PINFILE
set -euo pipefail
[ $# = 2 ] || { echo "usage: pip-install-layer.sh PYTHON PINFILE" >&2; exit 2; }
if [ ! -s "$2" ]; then
  echo "pip-install-layer: $(basename "$2"): nothing to install"
  exit 0
fi
exec pip-wheelhouse-install.sh "$1" --no-deps -r "$2"
