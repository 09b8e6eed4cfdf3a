#!/usr/bin/env bash
# Installs what building and testing opmatrix needs on a Debian (bookworm or newer) host.
# Idempotent: packages already present are skipped by apt. Needs root (or sudo).
#   --harness   only the harness build + unit tests (no LibTorch, no containers)
#   --host-cell also the host's LibTorch (libtorch-dev, python3-torch[vision]) for the host cell,
#               and what building Python extensions needs (Python headers, setuptools, wheel,
#               pip, pybind11), as every cell image has it (docs/cell-contract.md)
#   --containers also podman, runc, mmdebstrap (to run cells in containers)
#   --browser   also chromium (the HTML report's browser test)
#   --fuzz      also clang and its compiler-rt (libFuzzer, ASan, UBSan): the sanitize preset, which
#               builds the harness, its tests and harness/fuzz under them
set -euo pipefail

want_host_cell=0 want_containers=0 want_browser=0 want_fuzz=0
for arg in "$@"; do
  case "$arg" in
    --harness) ;;
    --host-cell) want_host_cell=1 ;;
    --containers) want_containers=1 ;;
    --browser) want_browser=1 ;;
    --fuzz) want_fuzz=1 ;;
    --all) want_host_cell=1; want_containers=1; want_browser=1; want_fuzz=1 ;;
    *) echo "install-deps.sh: unknown option '$arg' (use --harness, --host-cell, --containers, --browser, --fuzz, --all)" >&2; exit 2 ;;
  esac
done

pkgs=(build-essential cmake ninja-build ccache pkg-config git python3 python3-venv python3-pytest python3-pytest-xdist
      libyaml-cpp-dev libcli11-dev nlohmann-json3-dev libfmt-dev libgtest-dev googletest)
if [ "$want_host_cell" = 1 ]; then
  pkgs+=(libtorch-dev python3-torch python3-torchvision
         python3-dev python3-setuptools python3-wheel python3-pip pybind11-dev python3-pybind11)
fi
if [ "$want_browser" = 1 ]; then
  pkgs+=(chromium fonts-dejavu-core)
fi
if [ "$want_containers" = 1 ]; then
  pkgs+=(podman runc mmdebstrap uidmap fuse-overlayfs)
fi
if [ "$want_fuzz" = 1 ]; then
  pkgs+=(clang)
fi

sudo=()
[ "$(id -u)" = 0 ] || sudo=(sudo)
updated=0
# Installs those of the given packages that are missing.
install() {
  local missing=() p
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
  done
  if [ "${#missing[@]}" = 0 ]; then
    echo "install-deps: all $# packages present"
    return
  fi
  echo "install-deps: installing ${missing[*]}"
  [ "$updated" = 1 ] || "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  updated=1
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
}
install "${pkgs[@]}"
# libFuzzer and the sanitizer runtimes come with the compiler-rt of clang's own version
# (libclang-rt-14-dev on bookworm, -19- on trixie): known only once clang is there.
if [ "$want_fuzz" = 1 ]; then
  install "libclang-rt-$(clang -dumpversion | cut -d. -f1)-dev"
fi
# cuobjdump, which the fat-binary tests compare fatbin.py's own reader with: CUDA 13 toolkits
# installed from NVIDIA's wheels have none; PyPI has it from 13.2 on (a 0.3 MB wheel).
if [ "$want_host_cell" = 1 ] && ! command -v cuobjdump >/dev/null \
   && ! { command -v nvcc >/dev/null && [ -x "$(dirname "$(command -v nvcc)")/cuobjdump" ]; }; then
  tools="${XDG_CACHE_HOME:-$HOME/.cache}/opmatrix/cuobjdump"
  if [ ! -x "$tools/nvidia/cu13/bin/cuobjdump" ]; then
    echo "install-deps: cuobjdump from PyPI (nvidia-cuda-cuobjdump) into $tools"
    mkdir -p "$tools"
    python3 -m pip download -q --no-deps --disable-pip-version-check -d "$tools" "nvidia-cuda-cuobjdump==13.2.*"
    python3 -c 'import glob, sys, zipfile; zipfile.ZipFile(sorted(glob.glob(sys.argv[1] + "/*.whl"))[-1]).extractall(sys.argv[1])' "$tools"
    chmod +x "$tools/nvidia/cu13/bin/cuobjdump"
  fi
fi
