#!/usr/bin/env bash
# The per-cell GoogleTest cases (cases/) with a GPU visible. Every cell on a machine without a
# GPU skips their CUDA tests ("no GPU visible"); here they run, with the cell's CUDA promise
# (OPMATRIX_EXPECT_CUDA=1), so a skip that hides a missing CUDA kernel fails instead.
# Builds the cases and the op library for the GPU's own arch against python3's torch, runs them
# as a cell does (ctest, gtest's JSON), and writes OUT/cases.json (cases_summary.py: counts, every
# failure and every skip with its reason). Exit 1 if a case fails, 77 where no GPU is visible.
#   bench/gpu/cases.sh OUT [GOOGLETEST_SOURCES (default /usr/src/googletest)]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
out=$1
gtest=${2:-/usr/src/googletest}
mkdir -p "$out"
. "$here/gpu_env.sh"
build=$out/cases-build
echo "== building the cases for sm_$arch against $prefix"
cmake_build "$repo/cases" "$build" "$out/cases-build.log" -DOPMATRIX_CUDA_ARCHS="$arch" \
            -DOPMATRIX_GTEST_SOURCE_DIR="$gtest"

echo "== the cases, GPU visible"
rm -rf "$build/gtest"
status=0
OPMATRIX_EXPECT_CUDA=1 GTEST_OUTPUT="json:$build/gtest/" \
  ctest --test-dir "$build" --output-on-failure --timeout 300 -j 4 > "$out/cases-ctest.log" 2>&1 || status=1
tail -15 "$out/cases-ctest.log"
"$python" "$here/cases_summary.py" "$build/gtest" --json "$out/cases.json" || status=1
exit $status
