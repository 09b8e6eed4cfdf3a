# Sourced by the scripts of bench/gpu: the python whose torch holds CUDA ($python), the visible
# GPU's arch as nvcc numbers it ($arch, e.g. 90) and torch's CMake prefix ($prefix). Exits 77
# (nothing to run) where no GPU is visible, so a caller can tell "no GPU" from a failure. Also
# defines cmake_build (below), the one way the scripts build kernels/ or cases/ for this GPU.
python=${OPMATRIX_PYTHON:-python3}
arch=$("$python" -c 'import sys
try:
    import torch
except ImportError:
    sys.exit("bench/gpu: %s cannot import torch (set OPMATRIX_PYTHON to a CUDA torch'"'"'s python)" % sys.executable)
if not torch.cuda.is_available(): sys.exit(77)
print("%d%d" % torch.cuda.get_device_capability())') || {
  rc=$?
  [ "$rc" = 77 ] && echo "bench/gpu: no CUDA device visible to $python's torch: nothing to run" >&2
  exit "$rc"
}
prefix=$("$python" -c 'import torch; print(torch.utils.cmake_prefix_path)')

# cmake_build SOURCE BUILD LOG [CMAKE ARGS...]: configures SOURCE against this torch with CUDA
# (Ninja, Release) into BUILD and builds it on every core, the output in LOG; where either fails,
# the log's last 40 lines and exit 1.
cmake_build() {
  local source=$1 build=$2 log=$3
  shift 3
  { cmake -S "$source" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$prefix" \
          -DOPMATRIX_WITH_CUDA=ON "$@" && cmake --build "$build" -j "$(nproc)"; } > "$log" 2>&1 \
    || { tail -40 "$log"; exit 1; }
}
