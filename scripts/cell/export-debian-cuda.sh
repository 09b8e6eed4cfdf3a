#!/usr/bin/env bash
# Copy Debian's installed non-free CUDA compiler toolchain (package nvidia-cuda-toolkit:
# bookworm 11.8, trixie/sid 12.4) out of /usr into a self-contained, NVIDIA-style root:
#
#   DEST/bin/{nvcc,ptxas,cudafe++,fatbinary,nvlink,bin2c,...,crt/,gcc,g++}
#   DEST/nvvm/{bin/cicc,libdevice/}
#   DEST/include/   CUDA runtime headers + crt + thrust/cub/libcu++ (+ everything else
#                   nvidia-cuda-dev puts in /usr/include)
#   DEST/lib64/     libcudart (shared, static), libcudadevrt.a, libculibos.a, stubs/libcuda.so
#
# usage: export-debian-cuda.sh DEST [EXPECTED_VERSION]
# Used by containers/pypi.Containerfile (stage "nvcc") for CUDA versions that have no
# complete nvcc wheel on PyPI: the cu11/cu12 `nvidia-cuda-nvcc` wheels hold ptxas only.
# The NVIDIA binaries need only an old glibc, so the root works on another suite.
# Library .so files (cublas, ...) are NOT exported: a pip cell takes them from torch's
# wheels (scripts/cell/assemble-cuda-root.sh merges both).
# Debian's gcc/g++ wrappers come along: nvcc puts bin/ first on its PATH, so they pick
# the newest host compiler that this CUDA version supports (g++-13 ... g++-6).
set -euo pipefail
die() { echo "export-debian-cuda: $*" >&2; exit 1; }
[ $# -ge 1 ] || die "usage: export-debian-cuda.sh DEST [EXPECTED_VERSION]"
dest=$1 want=${2:-}
tk=/usr/lib/nvidia-cuda-toolkit
triplet=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || gcc -dumpmachine 2>/dev/null || echo x86_64-linux-gnu)
libdir=/usr/lib/$triplet
[ -x "$tk/bin/nvcc" ] || die "no $tk/bin/nvcc: install Debian's nvidia-cuda-toolkit (non-free) first"

ver=$("$tk/bin/nvcc" --version | sed -n 's/.*release \([0-9.]*\),.*/\1/p')
if [ -n "$want" ] && [ "$ver" != "$want" ]; then
  die "this suite's nvidia-cuda-toolkit is CUDA $ver, not $want (11.8: bookworm; 12.4: trixie/sid)"
fi

rm -rf "$dest"
mkdir -p "$dest/bin" "$dest/nvvm/bin" "$dest/nvvm/libdevice" "$dest/include" "$dest/lib64/stubs"

# bin: the real nvcc (not /usr/bin/nvcc, a wrapper script), its tools, crt/ stubs, wrappers.
cp -pL "$tk/bin/nvcc" "$dest/bin/"
cp -pLr "$tk/bin/crt" "$dest/bin/"
for w in gcc g++; do [ -e "$tk/bin/$w" ] && cp -pL "$tk/bin/$w" "$dest/bin/"; done
for f in $(dpkg -L nvidia-cuda-toolkit | grep '^/usr/bin/'); do
  case ${f##*/} in nvcc|compute-sanitizer|nvprof) continue ;; esac
  [ -f "$f" ] && cp -pL "$f" "$dest/bin/"
done
cp -pL "$tk/bin/cicc" "$dest/nvvm/bin/"
cp -pL "$tk"/libdevice/* "$dest/nvvm/libdevice/"

# include: the headers of the CUDA dev packages that are installed.
pkgs=
for p in nvidia-cuda-dev libthrust-dev libcub-dev libcu++-dev libnvtoolsext-dev nvidia-cuda-headers; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' && pkgs="$pkgs $p"
done
# shellcheck disable=SC2086
dpkg -L $pkgs | grep '^/usr/include/.' | while read -r f; do
  [ -f "$f" ] && [ ! -d "$f" ] && echo "${f#/usr/include/}"
done > /tmp/export-debian-cuda.headers
tar -C /usr/include -cf - -T /tmp/export-debian-cuda.headers | tar -C "$dest/include" -xhf -
rm -f /tmp/export-debian-cuda.headers

# lib64: what linking CUDA objects needs; the rest comes from the wheels.
for f in "$libdir"/libcudart.so* "$libdir"/libcudart_static.a "$libdir"/libcudadevrt.a "$libdir"/libculibos.a; do
  [ -e "$f" ] && cp -pP "$f" "$dest/lib64/"
done
[ -e "$libdir/stubs/libcuda.so" ] && cp -pL "$libdir/stubs/libcuda.so" "$dest/lib64/stubs/"

# A plain NVIDIA-style profile, so that this root also works without assemble-cuda-root.sh.
cat > "$dest/bin/nvcc.profile" <<'EOF'
TOP              = $(_HERE_)/..
NVVMIR_LIBRARY_DIR = $(TOP)/nvvm/libdevice
LD_LIBRARY_PATH += $(TOP)/lib64:
PATH            += $(TOP)/nvvm/bin:$(_HERE_):
INCLUDES        +=  "-I$(TOP)/include" $(_SPACE_)
LIBRARIES        =+ $(_SPACE_) "-L$(TOP)/lib64/stubs" "-L$(TOP)/lib64"
CUDAFE_FLAGS    +=
PTXAS_FLAGS     +=
EOF
echo "CUDA Version $ver" > "$dest/version.txt"
# The host compilers this toolkit accepts, in the order Debian's g++ wrapper tries them: the
# image installs the first one its suite has (CUDA 11.8 needs g++-11; bookworm's g++ is 12).
if [ -f "$dest/bin/g++" ]; then
  grep -o 'g++-[0-9][0-9.]*' "$dest/bin/g++" | awk '!seen[$0]++' > "$dest/host-compilers.txt"
fi
echo "export-debian-cuda: $dest: nvcc $ver, $(find "$dest/include" -type f | wc -l) headers, $(du -sh "$dest" | cut -f1)" >&2
