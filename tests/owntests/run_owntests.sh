#!/usr/bin/env bash
# tallyops (tests/owntests/tallyops: its package folder at the repository's root, a runtime
# requirement beyond torch, its own pytest suite) as its users install and test it, by a real
# `opmatrix run` of two Debian trixie torch 2.6 cells (tests/owntests/matrix.yaml):
#   tallyops-trixie-torch2.6-cpu         its requirements fetched from PyPI and installed, the
#                                        library imported, its smoke and its suite pass against
#                                        the installed wheel (its CUDA test skips: no GPU);
#   tallyops-broken-trixie-torch2.6-cpu  the same with its deliberately broken test in the run:
#                                        that one test is the cell's red, by its id and message.
#   run_owntests.sh OPMATRIX WORK_DIR
# Needs podman, the trixie cell image (never built here) and PyPI (the requirements step);
# exit 77 with the reason otherwise.
set -uo pipefail
opmatrix=$1 work=$2
repo=$(cd "$(dirname "$0")/../.." && pwd)
matrix=$repo/tests/owntests/matrix.yaml
export CONTAINERS_CONF=$repo/containers/podman/containers.conf
source "$repo/tests/scripts/prebuilt_images.sh"
cells=(--cell tallyops-trixie-torch2.6-cpu --cell tallyops-broken-trixie-torch2.6-cpu)
rm -rf "$work"
require_prebuilt_images "$opmatrix" "$matrix" "$repo" "$work" "${cells[@]}"
python3 -c 'import urllib.request; urllib.request.urlopen("https://pypi.org/simple/tabulate/", timeout=20)' 2>/dev/null ||
  skip "PyPI is not reachable from here: the requirements step fetches tabulate and pytest from it"

"$opmatrix" run --matrix "$matrix" --repo-root "$repo" --results "$work/results" --work-dir "$work/cells" \
  "${cells[@]}" --no-cache --no-cross-load --yes >"$work/run.stdout" 2>"$work/run.stderr"
rc=$?
sed 's/^/  | /' "$work/run.stdout"
[ "$rc" = 1 ] || { tail -20 "$work/run.stderr"; echo "FAIL: opmatrix exited $rc, expected 1 (the broken test's cell)"; exit 1; }
"$opmatrix" report --results "$work/results" --format junit -o "$work/report.xml" || { echo "FAIL: no JUnit report"; exit 1; }
python3 "$repo/tests/owntests/check_owntests.py" "$work/results" "$work/report.xml"
