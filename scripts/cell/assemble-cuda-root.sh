#!/usr/bin/env bash
# Assemble ONE CUDA toolkit root out of a venv's NVIDIA wheels (site-packages/nvidia/*),
# optionally on top of a separate nvcc toolchain, so that CMake (enable_language(CUDA),
# FindCUDAToolkit, the old FindCUDA used by torch <= 2.1's cmake) sees an ordinary toolkit:
#
#   DEST/bin/nvcc (+ ptxas, cudafe++, fatbinary, nvlink, ... and our nvcc.profile)
#   DEST/nvvm/{bin/cicc,libdevice}
#   DEST/include/   merged headers (cuda_runtime.h, cublas_v2.h, cudnn.h, nvtx3/, cccl/...)
#   DEST/lib64/     libcudart.so, libnvrtc.so, libcublas.so, ..., libcudnn.so (unversioned
#                   links CMake needs), libcudart_static.a, libcudadevrt.a; DEST/lib -> lib64
#
# usage: assemble-cuda-root.sh [--nvcc-root DIR] VENV DEST
#   VENV         a venv (or any prefix with lib/python3*/site-packages) holding torch's
#                nvidia-* wheels; works on a host venv as well as in an image.
#   --nvcc-root  a toolkit root with bin/nvcc and nvvm/ (e.g. /usr/local/cuda, or the
#                Debian toolkit exported by export-debian-cuda.sh). Needed below CUDA 13:
#                the cu11/cu12 `nvidia-cuda-nvcc` wheels ship ptxas only, no nvcc/cicc.
#                Its files win over the wheels' (headers must match the compiler).
# Everything in DEST is a symlink into the sources except bin/nvcc and bin/nvcc.profile
# (copied/written: nvcc finds its toolchain relative to its own directory).
set -euo pipefail

die() { echo "assemble-cuda-root: $*" >&2; exit 1; }
nvcc_root=
while [ $# -gt 0 ]; do
  case "$1" in
    --nvcc-root) nvcc_root=${2:?}; shift 2 ;;
    -h|--help) sed -n '2,22p' "$0"; exit 0 ;;
    -*) die "unknown option $1" ;;
    *) break ;;
  esac
done
[ $# = 2 ] || die "usage: assemble-cuda-root.sh [--nvcc-root DIR] VENV DEST"
venv=$(cd "$1" && pwd) dest=$2

sp=
for d in "$venv"/lib/python3*/site-packages "$venv"/lib64/python3*/site-packages; do
  [ -d "$d/nvidia" ] && { sp=$d; break; }
done
[ -n "$sp" ] || die "no site-packages/nvidia under $venv (is a CUDA torch installed there?)"

# Sources, highest priority first: the nvcc toolchain, the CUDA 13 wheel tree
# (nvidia/cu13: one prefix for all components), the per-component cu11/cu12 wheel dirs.
sources=()
if [ -n "$nvcc_root" ]; then
  nvcc_root=$(cd "$nvcc_root" && pwd)
  [ -x "$nvcc_root/bin/nvcc" ] || die "--nvcc-root $nvcc_root has no bin/nvcc"
  sources+=("$nvcc_root")
fi
for d in "$sp"/nvidia/cu[0-9]*; do [ -d "$d" ] && sources+=("$d"); done
for d in "$sp"/nvidia/*/; do
  d=${d%/}
  case ${d##*/} in cu[0-9]*|__pycache__) continue ;; esac
  sources+=("$d")
done

nvcc_src=
for s in "${sources[@]}"; do
  if [ -x "$s/bin/nvcc" ]; then nvcc_src=$s; break; fi
done
if [ -z "$nvcc_src" ]; then
  only=$(ls -d "$sp"/nvidia/*/bin/ptxas 2>/dev/null | head -1 || true)
  die "no nvcc in $sp/nvidia${only:+ (only $only: the cu11/cu12 nvidia-cuda-nvcc wheels carry ptxas, not nvcc)}; pass --nvcc-root DIR"
fi
[ -x "$nvcc_src/nvvm/bin/cicc" ] || die "$nvcc_src has bin/nvcc but no nvvm/bin/cicc"

rm -rf "$dest"
mkdir -p "$dest/bin" "$dest/include" "$dest/lib64"
dest=$(cd "$dest" && pwd)

# bin: copy nvcc (it resolves TOP from its own location), link the rest of its toolchain,
# then fill gaps (ptxas, ...) from the other sources.
cp -p "$nvcc_src/bin/nvcc" "$dest/bin/nvcc"
for s in "$nvcc_src" "${sources[@]}"; do
  [ -d "$s/bin" ] || continue
  for f in "$s"/bin/*; do
    n=${f##*/}
    case $n in nvcc|nvcc.profile|__pycache__|__init__.py) continue ;; esac
    [ -e "$dest/bin/$n" ] || ln -s "$f" "$dest/bin/$n"
  done
done
ln -s "$nvcc_src/nvvm" "$dest/nvvm"
# gcc/g++: the nvcc root's wrappers (Debian's pick a host compiler this CUDA supports) or the
# system ones. nvcc puts bin/ first on its PATH, and the image sets CC/CXX to these too, so
# C++ and CUDA host code use ONE compiler (mixing g++-14 objects with g++-13's libstdc++
# search path fails to link: undefined `__cxa_call_terminate`).
for c in gcc g++; do
  if [ ! -e "$dest/bin/$c" ]; then
    sys=$(command -v "$c") || die "no $c on PATH"
    ln -s "$sys" "$dest/bin/$c"
  fi
done

# include: per-file symlinks, first source wins.
for s in "${sources[@]}"; do
  [ -d "$s/include" ] || continue
  cp -rsn "$s/include/." "$dest/include/"
done
find "$dest/include" -depth \( -name '__init__.py' -o -name '__pycache__' \) -exec rm -rf {} +

# lib64: shared and static libraries, stubs; first source wins.
for s in "${sources[@]}"; do
  for l in "$s/lib64" "$s/lib"; do
    [ -d "$l" ] || continue
    for f in "$l"/*.so "$l"/*.so.* "$l"/*.a; do
      [ -e "$f" ] || continue
      [ -e "$dest/lib64/${f##*/}" ] || ln -s "$f" "$dest/lib64/${f##*/}"
    done
    if [ -d "$l/stubs" ] && [ ! -e "$dest/lib64/stubs" ]; then ln -s "$l/stubs" "$dest/lib64/stubs"; fi
  done
done
# Unversioned names (libcudart.so -> libcudart.so.12, ...): what find_library and -lfoo need.
( cd "$dest/lib64"
  for f in $(ls -1 | grep -E '^lib.+\.so\.[0-9.]+$' | sort -V); do
    base=${f%%.so.*}.so
    [ -e "$base" ] || ln -s "$f" "$base"
  done )
# nvcc links libcudart_static.a and libcudadevrt.a by default (and CMake's static CUDA
# runtime asks for both); the cu11/cu12 runtime wheels ship neither. Stand-ins, clearly
# labelled: the "static" runtime is a linker script for the shared one (torch itself uses the
# shared cudart), devrt an empty archive (only relocatable device code, -rdc, needs it).
if [ ! -e "$dest/lib64/libcudart_static.a" ]; then
  [ -e "$dest/lib64/libcudart.so" ] || die "no libcudart in the sources (nvidia-cuda-runtime wheel missing?)"
  printf '/* opmatrix assemble-cuda-root.sh: no libcudart_static.a in the wheels; link the shared runtime. */\nINPUT(-lcudart)\n' \
    > "$dest/lib64/libcudart_static.a"
fi
[ -e "$dest/lib64/libcudadevrt.a" ] || printf '!<arch>\n' > "$dest/lib64/libcudadevrt.a"
ln -s lib64 "$dest/lib"

# nvcc.profile: the standard layout relative to bin/ (TOP = DEST).
{
  echo "# opmatrix: written by scripts/cell/assemble-cuda-root.sh (nvcc from $nvcc_src)"
  echo "TOP              = \$(_HERE_)/.."
  echo "CICC_PATH        = \$(TOP)/nvvm/bin"
  echo "NVVMIR_LIBRARY_DIR = \$(TOP)/nvvm/libdevice"
  echo "LD_LIBRARY_PATH += \$(TOP)/lib64:"
  echo "PATH            += \$(TOP)/nvvm/bin:\$(_HERE_):"
  echo "INCLUDES        +=  \"-I\$(TOP)/include\" \$(_SPACE_)"
  if [ -d "$dest/include/cccl" ]; then
    echo "SYSTEM_INCLUDES +=  \"-isystem\" \"\$(TOP)/include/cccl\" \$(_SPACE_)"
  fi
  echo "LIBRARIES        =+ \$(_SPACE_) \"-L\$(TOP)/lib64/stubs\" \"-L\$(TOP)/lib64\""
  echo "CUDAFE_FLAGS    +="
  echo "PTXAS_FLAGS     +="
} > "$dest/bin/nvcc.profile"

ver=$("$dest/bin/nvcc" --version | sed -n 's/.*release \([0-9.]*\),.*/\1/p')
echo "assemble-cuda-root: $dest: nvcc $ver from $nvcc_src; $(ls "$dest/lib64" | wc -l) libs, $(find "$dest/include" -type l | wc -l) headers from ${#sources[@]} sources" >&2
missing=
for l in cudart nvrtc cublas cublasLt cufft curand cusolver cusparse; do
  [ -e "$dest/lib64/lib$l.so" ] || missing="$missing $l"
done
[ -z "$missing" ] || echo "assemble-cuda-root: note: no lib64/lib{${missing# }}.so" >&2
