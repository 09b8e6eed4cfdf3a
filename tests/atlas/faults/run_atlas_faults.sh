#!/usr/bin/env bash
# The atlas's faults, by real `opmatrix atlas run`s in the trixie runtime's real container, against
# a package index of our own (index_server.py) holding three pure-Python wheels (make_wheels.py):
#   1. the network drops in the middle of opm-drop's download: that pair is an error to run again
#      (exit 1), never a verdict; opm-abort, whose import kills its process (os.abort()), is a crash
#      of its own pair only: the pair after it runs and passes;
#   2. the network back: the rerun runs opm-drop only (the others' results stand), saying why, and
#      exits 0; a pair whose declaration changed says so in the dry run;
#   3. SIGINT in the middle of the atlas (downloads slowed so that it lands in the second pair):
#      exit 130 within 10 s, no container left; the rerun resumes: the pair finished before the
#      signal stands, the rest run.
#   run_atlas_faults.sh OPMATRIX WORK_DIR
# Needs podman and the trixie cell image (never built here); exit 77 with the reason otherwise.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../../.." && pwd)
opmatrix=$1 work=$2
source "$repo/tests/scripts/fixture_run.sh"
rm -rf "$work" && mkdir -p "$work/index"
fail() { echo "FAIL: $*"; exit 1; }

cat >"$work/atlas.yaml" <<YAML
version: 1
matrix: $repo/matrix.yaml
runtimes: [trixie-torch2.6-cpu]
libraries:
  - {name: opm-good, import: opm_good, releases: ["1.0"]}
  - {name: opm-abort, import: opm_abort, releases: ["1.0"]}
  - {name: opm-drop, import: opm_drop, releases: ["1.0"]}
YAML
command -v podman >/dev/null || skip "podman is not installed (scripts/install-deps.sh --containers)"
mkdir -p "$work/nobuild"
printf '#!/bin/sh\ncase "$1" in build|pull) echo "no image builds here" >&2; exit 99;; esac\nexec %s "$@"\n' \
  "$(command -v podman)" >"$work/nobuild/podman"
chmod +x "$work/nobuild/podman"
PATH=$work/nobuild:$PATH "$opmatrix" atlas run --atlas "$work/atlas.yaml" --results "$work/preflight" \
  --work-dir "$work/cells" --images-only >/dev/null 2>"$work/preflight.stderr" ||
  skip "the trixie cell image is not built (opmatrix run --images-only --cell trixie-torch2.6-cpu): $(tail -1 "$work/preflight.stderr")"

python3 "$here/make_wheels.py" "$work/index" || fail "could not make the wheels"
# On every address: the cells reach the host as host.containers.internal (podman's name for it).
python3 "$here/index_server.py" "$work/index" "$work/url" 0.0.0.0 &
server=$!
trap 'kill $server 2>/dev/null' EXIT
for _ in $(seq 50); do [ -s "$work/url" ] && break; sleep 0.1; done
[ -s "$work/url" ] || fail "the index did not start"
OPMATRIX_PYPI_URL=$(cat "$work/url")
export OPMATRIX_PYPI_URL

atlas() { "$opmatrix" atlas run --atlas "$work/atlas.yaml" --results "$work/results" --work-dir "$work/cells" --yes "$@"; }
status_of() {  # PAIR [RESULTS]: its result's status
  python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["status"])' "${2:-$work/results}/$1-1.0--trixie-torch2.6-cpu.json"
}
ran() { grep -o "opm-[a-z]*-1.0--trixie-torch2.6-cpu: fetch \.\.\." "$1" | sed 's/--.*//' | sort -u; }  # pairs that ran

echo "1. the network drops in the middle of opm-drop's download"
echo opm_drop-1.0-py3-none-any.whl >"$work/index/DROP"
atlas --no-cache >"$work/run1.stdout" 2>"$work/run1.stderr"
rc=$?
sed 's/^/  | /' "$work/run1.stdout"
[ "$rc" = 1 ] || fail "a pair the network failed is the infrastructure's error: exit 1 expected, got $rc"
[ "$(status_of opm-drop)" = error ] || fail "opm-drop: $(status_of opm-drop), expected error"
grep -q "the download stopped after" "$work/results/opm-drop-1.0--trixie-torch2.6-cpu.json" ||
  fail "opm-drop's error does not say the download stopped"
[ "$(status_of opm-abort)" = crash ] || fail "opm-abort: $(status_of opm-abort), expected crash"
# os.abort() raises SIGABRT; torch's own fatal-signal handler may end the process with another.
# The import runs in a child of the load step: the step ends, and its import is the crash.
grep -q "the import killed its process (SIG" "$work/results/opm-abort-1.0--trixie-torch2.6-cpu.json" ||
  fail "opm-abort's crash does not name its signal"
grep -q '"kind": "crash_at_import"' "$work/results/opm-abort-1.0--trixie-torch2.6-cpu.json" ||
  fail "opm-abort's import is not diagnosed as crash_at_import"
python3 -c 'import json, sys; c = [c for c in json.load(open(sys.argv[1]))["checks"] if c["check"] == "install-plan"]
assert c and c[0]["status"] == "pass", c' "$work/results/opm-good-1.0--trixie-torch2.6-cpu.json" ||
  fail "pip's plan for opm-good from the test's index did not pass"
[ "$(status_of opm-good)" = pass ] || fail "opm-good, after the pair that killed its process: $(status_of opm-good)"

echo "2. the network back: only the pair it failed runs again"
rm "$work/index/DROP"
atlas >"$work/run2.stdout" 2>"$work/run2.stderr" || { tail -20 "$work/run2.stderr"; fail "the rerun exited $?"; }
sed 's/^/  | /' "$work/run2.stdout"
[ "$(ran "$work/run2.stderr")" = opm-drop-1.0 ] || fail "the rerun ran $(ran "$work/run2.stderr" | tr '\n' ' '), expected opm-drop only"
[ "$(status_of opm-drop)" = pass ] || fail "opm-drop with the network back: $(status_of opm-drop)"
grep -q "opm-drop-1.0--trixie-torch2.6-cpu: runs again: its last result was error" "$work/run2.stderr" ||
  fail "the rerun of opm-drop does not say why it runs again"
# A pair whose declaration changed says so before it runs (here asked of the dry run).
sed 's/import: opm_good,/import: opm_good, namespace: opm_good_ns,/' "$work/atlas.yaml" >"$work/changed.yaml"
"$opmatrix" atlas run --atlas "$work/changed.yaml" --results "$work/results" --work-dir "$work/cells" --dry-run \
  >"$work/dry.stdout" 2>&1
grep -q "^run  *opm-good-1.0--trixie-torch2.6-cpu (changed since its last result: the cell's declaration)" "$work/dry.stdout" ||
  { cat "$work/dry.stdout"; fail "the dry run does not say that opm-good's declaration changed"; }
grep -q "^cached *opm-abort-1.0--trixie-torch2.6-cpu" "$work/dry.stdout" || fail "the dry run would run opm-abort again"

echo "3. SIGINT in the middle of the atlas; the rerun resumes"
# A fresh atlas (results, work dir: nothing in the download cache) whose slow downloads keep the
# second pair busy.
echo 4 >"$work/index/SLOW"
"$opmatrix" atlas run --atlas "$work/atlas.yaml" --results "$work/results3" --work-dir "$work/cells3" --yes \
  >"$work/run3.stdout" 2>"$work/run3.stderr" &
pid=$!  # opmatrix itself, not a subshell, gets the signal
# Up to 5 min: on 2 busy cores (a sanitizer build, atlas pairs beside it) the first pair alone took over 1 min.
for _ in $(seq 3000); do grep -q "opm-abort-1.0--trixie-torch2.6-cpu: fetch \.\.\." "$work/run3.stderr" && break; sleep 0.1; done
grep -q "opm-abort-1.0--trixie-torch2.6-cpu: fetch \.\.\." "$work/run3.stderr" || { kill -KILL $pid; fail "the second pair never started"; }
kill -INT $pid
start=$(date +%s)
wait $pid
rc=$?
took=$(( $(date +%s) - start ))
[ "$rc" = 130 ] || fail "SIGINT: exit $rc, expected 130"
[ "$took" -le 10 ] || fail "SIGINT: opmatrix took $took s to stop"
podman ps --format '{{.Names}}' | grep -q "opm-" && fail "a container of the atlas is left running"
rm "$work/index/SLOW"
"$opmatrix" atlas run --atlas "$work/atlas.yaml" --results "$work/results3" --work-dir "$work/cells3" --yes \
  >"$work/run4.stdout" 2>"$work/run4.stderr" || { tail -20 "$work/run4.stderr"; fail "the resumed run exited $?"; }
sed 's/^/  | /' "$work/run4.stdout"
[ "$(ran "$work/run4.stderr" | tr '\n' ' ')" = "opm-abort-1.0 opm-drop-1.0 " ] ||
  fail "the resumed run ran $(ran "$work/run4.stderr" | tr '\n' ' '), expected opm-abort and opm-drop (opm-good finished before the signal)"
for p in opm-good:pass opm-abort:crash opm-drop:pass; do
  [ "$(status_of "${p%%:*}" "$work/results3")" = "${p#*:}" ] ||
    fail "${p%%:*} after the resumed run: $(status_of "${p%%:*}" "$work/results3")"
done
echo "PASS: a cut download is an error run again, a library that kills its process takes only its pair, SIGINT resumes"
