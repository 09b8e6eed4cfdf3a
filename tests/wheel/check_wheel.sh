#!/usr/bin/env bash
# The wheel as a user gets it: built by scripts/build-wheel.sh, tagged manylinux by auditwheel,
# pip-installed into a fresh venv (and pipx-installed) and run on a PATH with no compiler, no cmake and no harness
# build folder: --version (the wheel's metadata says the same), `opmatrix init` in a copy of
# examples/boxops, `validate`, `run --dry-run`; and with no container engine on PATH the dry run
# says which is missing and how to get it. Prints the wheel's size and its install time.
#   tests/wheel/check_wheel.sh SCRATCH_DIR
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
scratch=$1
rm -rf "$scratch" && mkdir -p "$scratch"
fail() { echo "check_wheel: FAIL: $*" >&2; exit 1; }

"$repo/scripts/build-wheel.sh" "$scratch/dist" >"$scratch/build.log" 2>&1 \
  || { tail -n 40 "$scratch/build.log" >&2; fail "scripts/build-wheel.sh failed (log: $scratch/build.log)"; }
wheels=("$scratch"/dist/opmatrix-*.whl)
[ "${#wheels[@]}" = 1 ] || fail "expected one wheel in $scratch/dist, found: ${wheels[*]}"
wheel=${wheels[0]}
case "${wheel##*/}" in
  opmatrix-*-py3-none-manylinux_2_*_x86_64.whl) ;;
  *) fail "not a py3-none-manylinux wheel: ${wheel##*/}" ;;
esac
"$repo/build/wheel-tools/bin/auditwheel" show "$wheel" >"$scratch/auditwheel-show.txt"
tag=$(tr '\n' ' ' <"$scratch/auditwheel-show.txt" | grep -oE 'consistent with +the following platform tag: +"manylinux_2_[0-9]+_x86_64"' \
      | grep -oE 'manylinux_2_[0-9]+_x86_64') || { cat "$scratch/auditwheel-show.txt" >&2; fail "auditwheel show names no manylinux tag"; }
case "${wheel##*/}" in *"$tag"*) ;; *) fail "the file name's tag is not auditwheel's $tag" ;; esac

# pipx, as maintainers install their tools (from PyPI once, beside build-wheel.sh's tools).
tools=$repo/build/wheel-tools
[ -x "$tools/bin/pipx" ] || "$tools/bin/pip" install --quiet pipx || fail "cannot install pipx from PyPI"

version=$(sed -nE 's/^project\(opmatrix VERSION ([0-9][0-9.]*).*/\1/p' "$repo/CMakeLists.txt")
[ -n "$version" ] || fail "no project(opmatrix VERSION ...) in CMakeLists.txt"

# A PATH that holds only what this test runs itself: no compiler, no cmake, no make.
bin=$scratch/bin
mkdir -p "$bin"
for tool in bash sh env cat cp rm mkdir ln ls grep sed head tail tr date stat; do ln -s "$(command -v "$tool")" "$bin/$tool"; done
python3 -m venv "$scratch/venv"
export PATH="$scratch/venv/bin:$bin"
unset OPMATRIX_DATA_DIR
for tool in cc c++ gcc g++ clang clang++ cmake ninja make ld nvcc; do
  if command -v "$tool" >/dev/null; then fail "$tool is on the PATH this test runs with"; fi
done

start=$(date +%s%N)
pip install --quiet --no-index --disable-pip-version-check "$wheel" || fail "pip install of the wheel failed"
install_ms=$(( ($(date +%s%N) - start) / 1000000 ))
[ "$(command -v opmatrix)" = "$scratch/venv/bin/opmatrix" ] || fail "opmatrix is not the venv's: $(command -v opmatrix || echo none)"
[ -f "$scratch/venv/share/opmatrix/scripts/cell/probe.py" ] && [ -f "$scratch/venv/share/opmatrix/containers/pypi.Containerfile" ] \
  || fail "the venv lacks share/opmatrix (the Containerfiles and in-cell scripts)"
[ -x "$scratch/venv/share/opmatrix/scripts/cell/python.sh" ] || fail "python.sh lost its executable bit"
[ "$(opmatrix --version)" = "$version" ] || fail "opmatrix --version says '$(opmatrix --version)', CMakeLists.txt $version"
metadata=$(pip show opmatrix 2>/dev/null | sed -n 's/^Version: //p')
[ "$metadata" = "$version" ] || fail "the wheel's metadata says Version: $metadata, not $version"
# The binary brings its C++ libraries and knows no source tree to fall back on.
libs=$(PATH=/usr/bin:/bin ldd "$scratch/venv/bin/opmatrix")
for lib in libstdc++ libyaml-cpp libfmt; do
  case "$libs" in *"$lib"*) fail "the binary needs the host's $lib: $libs" ;; esac
done
if grep -qaF "$repo/scripts" "$scratch/venv/bin/opmatrix"; then fail "the wheel's binary names this source tree"; fi

# pipx: its own venv, the command linked into its bin folder (the binary finds its data through
# the link).
PIPX_HOME=$scratch/pipx PIPX_BIN_DIR=$scratch/pipx-bin "$tools/bin/pipx" install "$wheel" >"$scratch/pipx.log" 2>&1 \
  || { cat "$scratch/pipx.log" >&2; fail "pipx install of the wheel failed"; }
[ "$("$scratch/pipx-bin/opmatrix" --version)" = "$version" ] || fail "pipx's opmatrix does not say $version"

# An op library of its own: examples/boxops copied without the files init writes.
lib=$scratch/boxops
cp -r "$repo/examples/boxops" "$lib"
rm -rf "$lib/opmatrix.yaml" "$lib/opmatrix_samples.py" "$lib/build"
cd "$lib"
opmatrix init >"$scratch/init.log" 2>&1 || { cat "$scratch/init.log" >&2; fail "opmatrix init failed"; }
[ -f opmatrix.yaml ] && [ -f opmatrix_samples.py ] || fail "init wrote no opmatrix.yaml / opmatrix_samples.py"
grep -q "namespace: boxops, 2 ops (box_area, box_iou)" "$scratch/init.log" || { cat "$scratch/init.log" >&2; fail "init did not find boxops' two ops"; }
opmatrix validate >"$scratch/validate.log" 2>&1 || { cat "$scratch/validate.log" >&2; fail "validate refused init's opmatrix.yaml"; }
grep -q "^opmatrix.yaml: ok: 3 cells" "$scratch/validate.log" || { cat "$scratch/validate.log" >&2; fail "validate read another file"; }

# No engine on PATH: the dry run says what is missing and how to get it, and exits 1.
set +e
opmatrix run --dry-run --work-dir "$scratch/work" >"$scratch/dry-run-no-engine.log" 2>&1
rc=$?
set -e
[ "$rc" = 1 ] || { cat "$scratch/dry-run-no-engine.log" >&2; fail "a dry run with no podman exited $rc, not 1"; }
grep -q "the container engine 'podman' is not installed.*install podman: \`sudo apt-get install podman\`" "$scratch/dry-run-no-engine.log" \
  || { cat "$scratch/dry-run-no-engine.log" >&2; fail "the dry run did not say how to get podman"; }
echo "check_wheel: with no podman on PATH: $(grep -o "the container engine 'podman' is not installed" "$scratch/dry-run-no-engine.log")"

# With the host's podman (the user's own, and mmdebstrap, which makes its base images), the dry
# run plans the three cells. It exits 0, or 1 only for what this machine lacks and it names:
# disk for the images, or a base image mmdebstrap cannot make here.
host_path=/usr/bin:/bin:/usr/sbin:/sbin
podman_path=$(PATH=$host_path command -v podman || true)
if [ -n "$podman_path" ]; then
  ln -s "$podman_path" "$bin/podman"
  mmdebstrap_path=$(PATH=$host_path command -v mmdebstrap || true)
  [ -z "$mmdebstrap_path" ] || ln -s "$mmdebstrap_path" "$bin/mmdebstrap"
  for opmatrix in "$scratch/venv/bin/opmatrix" "$scratch/pipx-bin/opmatrix"; do
    set +e
    "$opmatrix" run --dry-run --work-dir "$scratch/work" >"$scratch/dry-run.log" 2>&1
    rc=$?
    set -e
    [ "$(grep -c '^run ' "$scratch/dry-run.log")" = 3 ] || { cat "$scratch/dry-run.log" >&2; fail "$opmatrix's dry run does not plan 3 cells"; }
    if [ "$rc" != 0 ]; then
      grep -qE "would not fit|would fail at their image step" "$scratch/dry-run.log" && [ "$rc" = 1 ] \
        || { cat "$scratch/dry-run.log" >&2; fail "$opmatrix run --dry-run exited $rc with podman on PATH"; }
      echo "check_wheel: the dry run says this machine lacks: $(grep -E "would not fit|fail at their image step" "$scratch/dry-run.log" | head -n 1)"
    fi
  done
  [ ! -e "$scratch/work/cells" ] || fail "the dry run made build folders"
else
  echo "check_wheel: no podman on this machine: the dry run with an engine is not tried (install podman to try it)"
fi

size_kib=$(( $(stat -c %s "$wheel") / 1024 ))
echo "check_wheel: ok: ${wheel##*/} ($tag by auditwheel), ${size_kib} KiB, pip install ${install_ms} ms;" \
     "opmatrix $version from pip and pipx: init, validate, run --dry-run with no compiler on PATH"
