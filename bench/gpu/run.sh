#!/usr/bin/env bash
# One short run on a machine with an NVIDIA GPU and a CUDA torch + torchvision in `python3`:
# builds libopmatrix_ops.so for the GPU's own arch, then
#   1. bench/gpu/check_cuda.py: every op's CUDA output and gradients against our CPU kernels and
#      torchvision's CUDA ops, torch.compile (static, dynamic) and torch.export against eager;
#   2. bench/kernels/gpu_bench.py: speed against torchvision's CUDA kernels on the kernel sweep's
#      detection shapes (ratios measured side by side in one run, the card named).
# Results go to OUT (default bench/gpu/out): check.json, bench.json, bench.md, build.log.
# About 3 minutes on 16 cores (the build: 4 ops for one arch). Exit 77 where no GPU is visible.
#   bench/gpu/run.sh [OUT]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
out=${1:-$here/out}
mkdir -p "$out"
. "$here/gpu_env.sh"
build=$out/build
echo "== building libopmatrix_ops.so for sm_$arch against $prefix"
cmake_build "$repo/kernels" "$build" "$out/build.log" -DOPMATRIX_CUDA_ARCHS="$arch"

status=0
echo "== correctness, gradients, compile and export on the GPU"
PYTHONPATH=$build "$python" "$here/check_cuda.py" --json "$out/check.json" || status=1
echo "== speed against torchvision"
"$python" "$repo/bench/kernels/gpu_bench.py" --ops "$build/libopmatrix_ops.so" \
    --json "$out/bench.json" --markdown "$out/bench.md" || status=1
exit $status
