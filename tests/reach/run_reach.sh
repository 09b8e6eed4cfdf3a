#!/usr/bin/env bash
# Libraries whose ops reach their users other than by a plain import of their extension
# (tests/reach/matrix.yaml), by a real `opmatrix run` of Debian trixie torch 2.6 CPU cells:
#   reachops-trixie-torch2.6-cpu   `import reachops` loads nothing compiled (reachops._C is
#                                  imported when an op is first called): both ops registered, and
#                                  said to be once reachops._C is imported; half_it, defined by a
#                                  function pointer, checked on a sample made from its runtime schema;
#   cudagated-trixie-torch2.6-cpu  setup.py builds its CUDA-only extension only with CUDA: no
#                                  extension here, by design — a limit naming setup.py's line, never
#                                  an error; the import and its own test pass, and its test file
#                                  that imports onnx (required by nothing) is one limit naming it;
#   skbuildops-trixie-torch2.6-cpu built by scikit-build-core, which the requirements step fetches
#                                  for the build as a user's isolated pip build would have it;
#   cudaonly-, syshdr-trixie-...   what the cell lacks (CUDA for a CUDAExtension-only setup.py; a
#                                  system library's header): "○ not run" naming it, no exit 1.
#   run_reach.sh OPMATRIX WORK_DIR
# Needs podman and the trixie cell image (never built here) and PyPI (pytest for the suites);
# exit 77 with the reason otherwise.
set -uo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
source "$repo/tests/scripts/fixture_run.sh"
require_pypi pytest "the requirements step fetches pytest for the suites"
run_fixture "$1" "$2" "$repo/tests/reach/matrix.yaml" 0 "no red in any cell" json "$repo/tests/reach/check_reach.py" \
  --cell reachops-trixie-torch2.6-cpu --cell cudagated-trixie-torch2.6-cpu --cell skbuildops-trixie-torch2.6-cpu \
  --cell cudaonly-trixie-torch2.6-cpu --cell syshdr-trixie-torch2.6-cpu
