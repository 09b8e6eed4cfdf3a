#!/usr/bin/env bash
# What only a GPU shows, in one call on a lent GPU machine (about 10 minutes on 16 cores):
#   1. run.sh      our CUDA kernels against our CPU kernels and torchvision's CUDA ops, then speed;
#   2. ptx_jit.sh  a PTX-only build, JIT-compiled by the driver: results and first-launch cost;
#   3. cases.sh    the per-cell GoogleTest cases with the GPU visible (cells here have none).
# Builds and logs stay in WORK; OUT gets the answers only (6 files: check.json, bench.json,
# bench.md, cases.json, ptx.json, all.log), each step's time and status in all.log. A failed step
# does not stop the next. Exit 1 if any step failed, 77 where no GPU is visible.
#   bench/gpu/all.sh OUT [GOOGLETEST_SOURCES] [WORK (default /tmp/opmatrix-gpu)]
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=$1
gtest=${2:-/usr/src/googletest}
work=${3:-/tmp/opmatrix-gpu}
mkdir -p "$out" "$work"
exec > >(tee "$out/all.log") 2>&1
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader || true

status=0
step() {
  local name=$1; shift
  local start=$SECONDS rc=0
  echo "===== $name"
  "$@" || rc=$?
  echo "===== $name: exit $rc after $((SECONDS - start)) s"
  [ "$rc" = 77 ] && exit 77
  [ "$rc" = 0 ] || status=1
}
step run.sh "$here/run.sh" "$work/run"
step ptx_jit.sh "$here/ptx_jit.sh" "$work/ptx" "$work/run/build"
step cases.sh "$here/cases.sh" "$work/cases" "$gtest"
for f in run/check.json run/bench.json run/bench.md cases/cases.json ptx/ptx.json; do
  [ -f "$work/$f" ] && cp "$work/$f" "$out/" || echo "all.sh: no $f"
done
exit $status
