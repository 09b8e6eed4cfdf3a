#!/usr/bin/env bash
# `cmake --install` gives a self-contained opmatrix: PREFIX/bin/opmatrix runs a library's own
# opmatrix.yaml from that library's folder, with the in-cell scripts from PREFIX/share/opmatrix
# (not from a checkout), and says what is missing when its data is not there.
#   check_install.sh BUILD_DIR SCRATCH_DIR
set -euo pipefail
build=$1 scratch=$2
rm -rf "$scratch" && mkdir -p "$scratch"
prefix=$scratch/prefix
cmake --install "$build" --prefix "$prefix" >/dev/null
fail() { echo "check_install: FAIL: $*" >&2; exit 1; }
for f in bin/opmatrix share/opmatrix/containers/pypi.Containerfile share/opmatrix/containers/podman/containers.conf \
         share/opmatrix/scripts/cell/probe.py share/opmatrix/scripts/cell/fetch_pypi.py share/opmatrix/scripts/make-base-image.sh; do
  [ -e "$prefix/$f" ] || fail "the install lacks $f"
done
[ -x "$prefix/share/opmatrix/scripts/cell/python.sh" ] || fail "python.sh lost its executable bit"

# A library folder of its own, far from any checkout: a CMake project whose configure stops
# at once (this test is about where opmatrix takes its scripts from, not about building).
lib=$scratch/mylib
mkdir -p "$lib"
printf 'cmake_minimum_required(VERSION 3.18)\nproject(mylib)\nmessage(FATAL_ERROR "mylib: configure stops here")\n' >"$lib/CMakeLists.txt"
cat >"$lib/opmatrix.yaml" <<'YAML'
version: 1
cuda_archs: ["8.0"]
cells:
  - id: here
    torch: "1.13.1"
    torchvision: "0.14.1"
    cuda: none
    runner: host
    project: {path: ., kind: cmake, namespace: mylib}
YAML
cd "$lib"
"$prefix/bin/opmatrix" validate --matrix opmatrix.yaml >/dev/null || fail "validate refused the library's own matrix"
set +e
env -u OPMATRIX_DATA_DIR "$prefix/bin/opmatrix" run --matrix opmatrix.yaml --engine host --cell here \
  --results "$scratch/results" --work-dir "$scratch/work" >"$scratch/run.log" 2>&1
set -e
[ -f "$scratch/results/here.json" ] || { cat "$scratch/run.log" >&2; fail "no results/here.json"; }
probe=$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(next(s["command"] for s in r["steps"] if s["name"]=="probe"))' "$scratch/results/here.json")
case "$probe" in
  *"$prefix/share/opmatrix/scripts/cell/probe.py"*) ;;
  *) fail "the probe ran from elsewhere than the install: $probe" ;;
esac

# Its data gone (a wrong OPMATRIX_DATA_DIR): a clear error and exit 2, nothing run.
set +e
OPMATRIX_DATA_DIR=$scratch/nowhere "$prefix/bin/opmatrix" run --matrix opmatrix.yaml --engine host --cell here \
  --results "$scratch/results2" --work-dir "$scratch/work" >"$scratch/run2.log" 2>&1
rc=$?
set -e
[ "$rc" = 2 ] || fail "a missing data folder exited $rc, not 2"
grep -q "cannot find opmatrix's Containerfiles and in-cell scripts" "$scratch/run2.log" || fail "no plain-words error: $(cat "$scratch/run2.log")"
[ ! -e "$scratch/results2/here.json" ] || fail "a cell ran without its scripts"
echo "check_install: ok (probe ran from $prefix/share/opmatrix)"
