#!/usr/bin/env bash
# Puts the verdict "no sm_X SASS, only PTX JIT-compiled by the driver (slow first launch)" to the
# test on a real card. The op library is built with PTX alone for an older arch
# (compute_PTX_ARCH, default 80: no SASS at all), so the driver must JIT-compile our PTX for this
# GPU, as it does on a card newer than a cell's nvcc knows. Then:
#   1. the cells' own fatbin.py reads that build and the SASS build: it must find PTX only;
#   2. check_cuda.py runs every CUDA comparison on the PTX build (results as the SASS build's);
#   3. first_launch.py times each op's first launch in a fresh process, JIT cache off
#      (CUDA_CACHE_DISABLE=1), for both builds: the "slow first launch" as a number.
# Writes OUT/ptx.json (the three answers). Exit 1 if a step fails, 77 where no GPU is visible.
#   bench/gpu/ptx_jit.sh OUT SASS_BUILD [PTX_ARCH]     (SASS_BUILD: run.sh's OUT/build)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
out=$1
sass_build=$2
ptx_arch=${3:-80}
mkdir -p "$out"
. "$here/gpu_env.sh"
build=$out/ptx-build
echo "== building libopmatrix_ops.so with compute_$ptx_arch PTX only (this GPU: sm_$arch)"
cmake_build "$repo/kernels" "$build" "$out/ptx-build.log" -DOPMATRIX_CUDA_ARCHS="$ptx_arch-virtual"

status=0
echo "== what fatbin.py reads in each build"
"$python" "$repo/scripts/cell/fatbin.py" "$build/libopmatrix_ops.so" "$sass_build/libopmatrix_ops.so" \
  > "$out/ptx-fatbin.json" || status=1
echo "== every CUDA comparison on the PTX build"
PYTHONPATH=$build "$python" "$here/check_cuda.py" --json "$out/ptx-check.json" || status=1
echo "== first launch, JIT cache off: PTX build, then SASS build"
for which in ptx:$build sass:$sass_build; do
  CUDA_CACHE_DISABLE=1 PYTHONPATH=${which#*:} "$python" "$here/first_launch.py" \
    --json "$out/first-${which%%:*}.json" || status=1
done
"$python" - "$out" "$ptx_arch" "$arch" <<'PY' || status=1
import json, os, sys
out, ptx_arch, arch = sys.argv[1:]
load = lambda name: json.load(open(os.path.join(out, name)))
check = load("ptx-check.json")
summary = {"gpu_arch": arch, "ptx_arch": ptx_arch, "fatbin": load("ptx-fatbin.json"),
           "check": {k: v for k, v in check.items() if k != "rows"},
           "check_failures": [r for r in check["rows"] if not r["ok"]],
           "first_launch": {"ptx": load("first-ptx.json"), "sass": load("first-sass.json")}}
json.dump(summary, open(os.path.join(out, "ptx.json"), "w"), indent=1)
for op, ptx in summary["first_launch"]["ptx"]["ops"].items():
    sass = summary["first_launch"]["sass"]["ops"][op]
    print("%-15s first launch %8.1f ms PTX-JIT, %7.1f ms SASS; then %.3f / %.3f ms"
          % (op, ptx["first_ms"], sass["first_ms"], ptx["then_ms"], sass["then_ms"]))
PY
exit $status
