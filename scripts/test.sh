#!/usr/bin/env bash
# The test command (README): installs what it needs, builds the harness, runs its unit tests,
# the workflow checks and the wheel (built, installed in a venv with no compiler on PATH, run),
# then the host cell: kernels/ and cases/ built and run against this machine's own LibTorch,
# then the reliability checks: the signal tests (those with podman skip without it), the unit
# and reliability tests again under ASan + UBSan, and the matrix.yaml fuzzer for
# $OPMATRIX_FUZZ_SECONDS (default 60).
#   scripts/test.sh [--unit-only]
set -euo pipefail
cd "$(dirname "$0")/.."

unit_only=0
[ "${1:-}" = "--unit-only" ] && unit_only=1

if [ "$unit_only" = 1 ]; then scripts/install-deps.sh --harness; else scripts/install-deps.sh --harness --host-cell --browser --fuzz; fi

cmake --preset default -DOPMATRIX_HOST_CELL_TESTS="$([ "$unit_only" = 1 ] && echo OFF || echo ON)"
cmake --build --preset default
ctest --preset unit
ctest --preset workflow
ctest --preset wheel
if [ "$unit_only" = 0 ]; then
  ctest --preset browser
  ctest --preset host-cell
  ctest --preset reliability
  ctest --preset verdicts
  # Sanitizers stop at the first report (halt_on_error, leaks included: see the test preset).
  cmake --preset sanitize
  cmake --build --preset sanitize
  ctest --preset sanitize
  harness/fuzz/run-fuzzer.sh "${OPMATRIX_FUZZ_SECONDS:-60}"
fi
