#!/usr/bin/env bash
# The test command (README): installs what it needs, builds the harness, runs its unit tests,
# the workflow checks and the wheel (built, installed in a venv with no compiler on PATH, run),
# then the host cell: kernels/ and cases/ built and run against this machine's own LibTorch,
# then the reliability checks: the signal tests (those with podman skip without it), the unit
# and reliability tests again under ASan + UBSan, and the matrix.yaml fuzzer (the same build) for
# $OPMATRIX_FUZZ_SECONDS (default 60).
#   scripts/test.sh [--unit-only]
# Each step's wall time is printed when it ends, and all of them at the end (also when a step
# fails): CI keeps no output of a run that passed, so a slow run is taken apart from a local one.
set -euo pipefail
cd "$(dirname "$0")/.."

unit_only=0
[ "${1:-}" = "--unit-only" ] && unit_only=1

# Paths under the repository reach ccache relative to each build folder: the wheel's build
# (tests/wheel) then finds build/default's objects in the cache instead of compiling them again.
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$PWD}"

timings=()
print_timings() {
  local rc=$?
  [ "${#timings[@]}" -gt 0 ] && printf 'test.sh: %s\n' "${timings[@]}" "${SECONDS} s in all, exit ${rc}"
}
trap print_timings EXIT
step() {
  local start=$SECONDS
  "$@"
  timings+=("$(printf '%5d s  %s' $((SECONDS - start)) "$*")")
  echo "test.sh: ${timings[-1]}"
}

if [ "$unit_only" = 1 ]; then step scripts/install-deps.sh --harness; else step scripts/install-deps.sh --harness --host-cell --browser --fuzz; fi

step cmake --preset default -DOPMATRIX_HOST_CELL_TESTS="$([ "$unit_only" = 1 ] && echo OFF || echo ON)"
step cmake --build --preset default
step ctest --preset unit
step ctest --preset workflow
step ctest --preset wheel
if [ "$unit_only" = 0 ]; then
  step ctest --preset browser
  step ctest --preset host-cell
  step ctest --preset reliability
  step ctest --preset verdicts
  # Sanitizers stop at the first report (halt_on_error, leaks included: see the test preset).
  # One clang build serves them and the fuzzer (the fuzz preset is the sanitize build).
  step cmake --preset sanitize
  step cmake --build --preset sanitize
  step ctest --preset sanitize
  step harness/fuzz/run-fuzzer.sh "${OPMATRIX_FUZZ_SECONDS:-60}"
fi
