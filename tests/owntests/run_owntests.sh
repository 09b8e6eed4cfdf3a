#!/usr/bin/env bash
# tallyops (tests/owntests/tallyops: its package folder at the repository's root, a runtime
# requirement beyond torch, its own pytest suite) as its users install and test it, by a real
# `opmatrix run` of two Debian trixie torch 2.6 cells (tests/owntests/matrix.yaml):
#   tallyops-trixie-torch2.6-cpu         its requirements fetched from PyPI and installed, the
#                                        library imported, its smoke and its suite pass against
#                                        the installed wheel (its CUDA test skips: no GPU);
#   tallyops-broken-trixie-torch2.6-cpu  the same with its deliberately broken test in the run:
#                                        that one test is the cell's red, by its id and message.
#   run_owntests.sh OPMATRIX WORK_DIR
# Needs podman, the trixie cell image (never built here) and PyPI (the requirements step);
# exit 77 with the reason otherwise.
set -uo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
source "$repo/tests/scripts/fixture_run.sh"
require_pypi tabulate "the requirements step fetches tabulate and pytest from it"
run_fixture "$1" "$2" "$repo/tests/owntests/matrix.yaml" 1 "the broken test's cell" junit \
  "$repo/tests/owntests/check_owntests.py" --cell tallyops-trixie-torch2.6-cpu --cell tallyops-broken-trixie-torch2.6-cpu
