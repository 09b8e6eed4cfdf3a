#!/usr/bin/env bash
# matrix.yaml's `gpu-host` cell, on a GPU machine that already is the cell's environment (pip torch
# 2.11 + torchvision 0.26, CUDA 13.0): `opmatrix run --engine host --cell gpu-host`, every check
# with the GPU visible, then its report. The machine needs what the cell contract asks of an
# environment (docs/cell-contract.md), GoogleTest's sources among them; OPMATRIX_CUDA_ROOT defaults
# to the toolkit of the nvcc on PATH, else /usr/local/cuda. The harness binary may come from another machine (a GPU
# machine without yaml-cpp or fmt): OPMATRIX names it, its shared libraries beside it in lib/.
# Results and builds stay in WORK; OUT gets three files: gpu-host.json (the cell's result),
# gpu-host.md (its report) and gpu-host-logs.tar.gz (its step logs). Exit: the run's.
# OPMATRIX_RUN_TIMEOUT=S stops the run with SIGINT after S seconds (a lent machine's time is
# counted): the result then says it was interrupted, and the report and logs still come out.
#   bench/gpu/host_cell.sh OUT [OPMATRIX (default build/default/harness/opmatrix)] [WORK (default /tmp/opmatrix-gpu/host)]
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
out=$1
opmatrix=$(readlink -f "${2:-$repo/build/default/harness/opmatrix}")
work=${3:-/tmp/opmatrix-gpu/host}
mkdir -p "$out" "$work"
if [ -z "${OPMATRIX_CUDA_ROOT:-}" ]; then
  nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
  [ -x "$nvcc" ] && OPMATRIX_CUDA_ROOT=$(dirname "$(dirname "$(readlink -f "$nvcc")")") && export OPMATRIX_CUDA_ROOT
fi
export OPMATRIX_DATA_DIR=$repo LD_LIBRARY_PATH=$(dirname "$opmatrix")/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
cd "$repo"
status=0
${OPMATRIX_RUN_TIMEOUT:+timeout -s INT "$OPMATRIX_RUN_TIMEOUT"} \
  "$opmatrix" run --engine host --cell gpu-host --results "$work/results" --work-dir "$work/work" --yes || status=$?
cp "$work/results/gpu-host.json" "$out/" || status=1
"$opmatrix" report --results "$work/results" --format md -o "$out/gpu-host.md" || true
tar -czf "$out/gpu-host-logs.tar.gz" -C "$work/results" logs || true
exit $status
