# Sourced by the scripts of bench/gpu: the python whose torch holds CUDA ($python), the visible
# GPU's arch as nvcc numbers it ($arch, e.g. 90) and torch's CMake prefix ($prefix). Exits 77
# (nothing to run) where no GPU is visible, so a caller can tell "no GPU" from a failure.
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
