#!/usr/bin/env bash
# Builds bench/kernels against a torch, runs the kernel sweep and regenerates the figures in
# bench/kernels/README.md from it (render_sweep.py).
#
#   bench/kernels/run-sweep.sh [--torch-prefix DIR] [--build DIR] [--no-readme] [kernel_sweep flags…]
#
# --torch-prefix  torch's CMake prefix (default: the one the host's python3 torch names, else
#                 Debian's /usr/lib/x86_64-linux-gnu/cmake)
# --build         build folder (default build/bench-kernels); the rows go to <build>/sweep.json
# --no-readme     print the figures instead of writing them into the README
# Run it on a quiet machine: the thread-scaling figures mean nothing while other work runs.
set -euo pipefail

REPO=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=$REPO/build/bench-kernels
PREFIX=""
README=$REPO/bench/kernels/README.md
SWEEP_ARGS=()
while [ $# -gt 0 ]; do
  case "$1" in
    --torch-prefix) PREFIX=$2; shift 2 ;;
    --build) BUILD=$(realpath -m "$2"); shift 2 ;;
    --no-readme) README=""; shift ;;
    -h|--help) sed -n '2,11p' "$0"; exit 0 ;;
    *) SWEEP_ARGS+=("$1"); shift ;;
  esac
done
PYTHON=${OPMATRIX_PYTHON:-/usr/bin/python3}
if [ -z "$PREFIX" ]; then
  PREFIX=$("$PYTHON" -c 'import torch.utils; print(torch.utils.cmake_prefix_path)' 2>/dev/null || true)
  # Debian's torch names a prefix it does not ship; its CMake files are in the multiarch folder.
  [ -n "$PREFIX" ] && [ -d "$PREFIX/Torch" ] || PREFIX=/usr/lib/x86_64-linux-gnu/cmake
fi

launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
OPMATRIX_PYTHON=$PYTHON cmake -S "$REPO/bench/kernels" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$PREFIX" "${launcher[@]}" >/dev/null
cmake --build "$BUILD" -j2

status=0
"$BUILD/kernel_sweep" --json "$BUILD/sweep.json" "${SWEEP_ARGS[@]}" || status=$?
[ -f "$BUILD/sweep.json" ] || exit "$status"
render=("$REPO/bench/kernels/render_sweep.py" "$BUILD/sweep.json" --date "$(date -u +%F)"
        --commit "$(git -C "$REPO" rev-parse --short HEAD 2>/dev/null || echo unknown)")
[ -z "$README" ] || render+=(--readme "$README")
"$PYTHON" "${render[@]}" || status=$?
exit "$status"
