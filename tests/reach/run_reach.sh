#!/usr/bin/env bash
# Libraries whose ops reach their users other than by a plain import of their extension
# (tests/reach/matrix.yaml), by a real `opmatrix run` of Debian trixie torch 2.6 CPU cells:
#   reachops-trixie-torch2.6-cpu   `import reachops` loads nothing compiled (reachops._C is
#                                  imported when an op is first called): both ops registered, and
#                                  said to be once reachops._C is imported; half_it, defined by a
#                                  function pointer, checked on a sample made from its runtime schema;
#   cudagated-trixie-torch2.6-cpu  setup.py builds its CUDA-only extension only with CUDA: no
#                                  extension here, by design — a limit naming setup.py's line, never
#                                  an error; the import and its own test pass, and its test file
#                                  that imports onnx (required by nothing) is one limit naming it.
#   run_reach.sh OPMATRIX WORK_DIR
# Needs podman and the trixie cell image (never built here) and PyPI (pytest for the suites);
# exit 77 with the reason otherwise.
set -uo pipefail
opmatrix=$1 work=$2
repo=$(cd "$(dirname "$0")/../.." && pwd)
matrix=$repo/tests/reach/matrix.yaml
export CONTAINERS_CONF=$repo/containers/podman/containers.conf
source "$repo/tests/scripts/prebuilt_images.sh"
cells=(--cell reachops-trixie-torch2.6-cpu --cell cudagated-trixie-torch2.6-cpu)
rm -rf "$work"
require_prebuilt_images "$opmatrix" "$matrix" "$repo" "$work" "${cells[@]}"
python3 -c 'import urllib.request; urllib.request.urlopen("https://pypi.org/simple/pytest/", timeout=20)' 2>/dev/null ||
  skip "PyPI is not reachable from here: the requirements step fetches pytest for the suites"

"$opmatrix" run --matrix "$matrix" --repo-root "$repo" --results "$work/results" --work-dir "$work/cells" \
  "${cells[@]}" --no-cache --no-cross-load --yes >"$work/run.stdout" 2>"$work/run.stderr"
rc=$?
sed 's/^/  | /' "$work/run.stdout"
[ "$rc" = 0 ] || { tail -20 "$work/run.stderr"; echo "FAIL: opmatrix exited $rc, expected 0 (no red in either cell)"; exit 1; }
"$opmatrix" report --results "$work/results" --format json -o "$work/report.json" || { echo "FAIL: no JSON report"; exit 1; }
python3 "$repo/tests/reach/check_reach.py" "$work/results" "$work/report.json"
