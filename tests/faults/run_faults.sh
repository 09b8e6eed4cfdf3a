#!/usr/bin/env bash
# Faults with real containers (issue #7): tests/faults/matrix.yaml run by `opmatrix run`.
#   run_faults.sh OPMATRIX WORK_DIR cells|disk-full|engine
# cells     — one run of the default fault cells (--jobs 2, --memory 1g): fault-pass passes;
#             fault-segfault crash (SIGSEGV), fault-hang timeout (smoke limit 5 s),
#             fault-oom crash (SIGKILL, "out of memory": kind killed), fault-killed crash (kind killed: the test
#             `podman kill`s its smoke container), fault-compile-error fail/compile_error
#             naming broken.cpp:8, fault-missing-image error/image_error, fault-disk-full left out (not default),
#             fault-wrong-meta fail: opcheck test_faketensor and compile red for the op whose
#             Meta kernel gives the wrong size, green for the right one beside it.
# disk-full — fault-disk-full alone, --work-dir on a 4 MiB tmpfs: fail with disk_full.
# engine    — no podman on PATH, then a podman whose --version fails: exit 1, a plain
#             message, no results; then a podman that answers but fails every other command:
#             the cell ends error/image_error.
# After every run: opmatrix's exit status (1: cells not as expected — the fault cells carry
# no `expect`, see matrix.yaml), each results file is whole JSON with the expected status and
# diagnosis kind, no container of the run is left, no half-written file in the results.
# Exit 77 (CTest SKIP) with the reason where podman, the trixie base or cell image is missing
# (this test never builds an image) or, for disk-full, where tmpfs cannot be mounted.
set -uo pipefail

opmatrix=$1 work=$2 mode=$3
repo=$(cd "$(dirname "$0")/../.." && pwd)
matrix=$repo/tests/faults/matrix.yaml
export CONTAINERS_CONF=$repo/containers/podman/containers.conf

t_start=$(date +%s)
pid= small=
cleanup() {
  [ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null
  if [ -n "$small" ] && mountpoint -q "$small"; then umount "$small" || umount -l "$small"; fi
  true
}
trap cleanup EXIT
fail() { echo "FAIL ($mode): $*" >&2; exit 1; }
skip() { echo "SKIP ($mode): $*"; exit 77; }

rm -rf "$work"
mkdir -p "$work/bin"

# Runs opmatrix on the fault matrix; "$@" are extra arguments. Sets rc, writes run.stdout/.stderr.
# --yes: the faults are what is under test, not the disk estimate (the disk-full mode's work dir
# is a 4 MiB tmpfs on purpose).
run_opmatrix() {
  local name=$1 results=$2
  shift 2
  "$opmatrix" run --matrix "$matrix" --repo-root "$repo" --results "$results" --no-cache --no-cross-load --yes "$@" \
    >"$work/$name.stdout" 2>"$work/$name.stderr"
  rc=$?
}

# cell STATUS CHECK KIND [SUMMARY_REGEX]: the results file is whole JSON, the cell has that
# status, and (unless CHECK is -) a check CHECK carries a diagnosis of kind KIND (a regex)
# whose summary matches. Prints the cell's line for the log.
assert_cell() {
  local results=$1 cell=$2 status=$3 check=$4 kind=${5:-} summary=${6:-}
  python3 - "$results/$cell.json" "$status" "$check" "$kind" "$summary" <<'PY' || fail "$cell: see above"
import json, re, sys
path, status, check, kind, summary = sys.argv[1:]
try:
    r = json.load(open(path))
except Exception as e:
    sys.exit(f"{path}: not a whole JSON results file: {e}")
if not re.fullmatch(status, r["status"]):
    sys.exit(f"{path}: status {r['status']}, expected {status}")
line = f"  {r['cell']['id']:<22} {r['status']:<8} {r['seconds']:6.1f} s"
if check != "-":
    found = [c for c in r["checks"] if c["check"] == check and c.get("diagnosis")]
    if not found:
        sys.exit(f"{path}: no '{check}' check with a diagnosis: {[(c['check'], c['status']) for c in r['checks']]}")
    d = found[0]["diagnosis"]
    if not re.fullmatch(kind, d.get("kind", "")):
        sys.exit(f"{path}: diagnosis kind {d.get('kind')}, expected {kind}: {d.get('summary')}")
    if summary and not re.search(summary, d.get("summary", "")):
        sys.exit(f"{path}: diagnosis summary does not match /{summary}/: {d.get('summary')}")
    line += f"  {found[0]['check']} {found[0]['status']}: {d['kind']}: {d['summary']}"
print(line)
PY
}

# No container whose name matches the regex $1 is left; nothing half-written under $2.
assert_clean() {
  local names=$1 results=$2 left partial
  left=$(podman ps -a --format '{{.Names}}' 2>/dev/null | grep -E -- "$names")
  [ -z "$left" ] || fail "containers left behind: $left"
  partial=$(find "$results" -name '*.tmp*' -o -name '*.part' -o -name '*~' 2>/dev/null)
  [ -z "$partial" ] || fail "half-written files: $partial"
}

show() { echo "--- $1 (exit $rc)"; sed 's/^/  | /' "$work/$1.stdout"; }

if [ "$mode" = engine ]; then
  # 1. No container engine at all (PATH without podman).
  ln -s "$(command -v python3 || echo /usr/bin/python3)" "$work/bin/python3"
  results=$work/results-missing
  PATH=$work/bin run_opmatrix engine-missing "$results" --cell fault-pass
  show engine-missing
  [ "$rc" = 1 ] || { cat "$work/engine-missing.stderr" >&2; fail "no podman: exit $rc, expected 1"; }
  grep -q "container engine 'podman' is not installed" "$work/engine-missing.stderr" ||
    { cat "$work/engine-missing.stderr" >&2; fail "no podman: no plain message"; }
  [ ! -e "$results" ] || fail "no podman: results were written: $(ls -R "$results")"
  sed 's/^/  stderr: /' "$work/engine-missing.stderr"

  # 2. An engine that does not even answer --version.
  mkdir -p "$work/broken"
  printf '#!/bin/sh\necho "Error: cannot connect to the container engine (simulated by run_faults.sh)" >&2\nexit 125\n' \
    >"$work/broken/podman"
  chmod +x "$work/broken/podman"
  results=$work/results-broken
  PATH=$work/broken:$PATH run_opmatrix engine-broken "$results" --cell fault-pass
  show engine-broken
  [ "$rc" = 1 ] || { cat "$work/engine-broken.stderr" >&2; fail "broken podman: exit $rc, expected 1"; }
  grep -q "'podman --version' failed" "$work/engine-broken.stderr" ||
    { cat "$work/engine-broken.stderr" >&2; fail "broken podman: no plain message"; }
  [ ! -e "$results" ] || fail "broken podman: results were written"
  sed 's/^/  stderr: /' "$work/engine-broken.stderr"

  # 3. An engine that answers --version, then fails every command (storage gone, daemon down).
  mkdir -p "$work/failing"
  printf '#!/bin/sh\n[ "$1" = --version ] && exec echo "podman version 0 (run_faults.sh)"\necho "Error: simulated engine failure: podman $1" >&2\nexit 125\n' \
    >"$work/failing/podman"
  chmod +x "$work/failing/podman"
  results=$work/results-failing
  PATH=$work/failing:$PATH run_opmatrix engine-failing "$results" --cell fault-missing-image
  show engine-failing
  [ "$rc" = 1 ] || { cat "$work/engine-failing.stderr" >&2; fail "failing podman: exit $rc, expected 1"; }
  assert_cell "$results" fault-missing-image error build image_error
  assert_clean "^opmatrix-fault-missing-image-" "$results"
  echo "PASS (engine) in $(( $(date +%s) - t_start )) s"
  exit 0
fi

command -v podman >/dev/null || skip "podman is not installed (scripts/install-deps.sh --containers)"
podman image exists localhost/opmatrix-base:trixie 2>/dev/null ||
  skip "no localhost/opmatrix-base:trixie (scripts/make-base-image.sh trixie)"
# The cell image must be there already: ask opmatrix for it with a podman that refuses to
# build or pull (this test must never start an image build).
real_podman=$(command -v podman)
mkdir -p "$work/nobuild"
printf '#!/bin/sh\ncase "$1" in build|pull) echo "run_faults.sh: no image builds here" >&2; exit 99;; esac\nexec %s "$@"\n' \
  "$real_podman" >"$work/nobuild/podman"
chmod +x "$work/nobuild/podman"
PATH=$work/nobuild:$PATH "$opmatrix" run --matrix "$matrix" --repo-root "$repo" --results "$work/preflight" \
  --work-dir "$work/cells" --images-only --cell fault-pass >/dev/null 2>"$work/preflight.stderr" ||
  skip "the trixie cell image is not built (opmatrix run --images-only --cell trixie-torch2.6-cpu): $(tail -1 "$work/preflight.stderr")"

if [ "$mode" = disk-full ]; then
  small=$work/small
  mkdir -p "$small"
  mount -t tmpfs -o size=4m tmpfs "$small" 2>"$work/mount.err" ||
    { small=; skip "cannot mount a tmpfs here: $(cat "$work/mount.err")"; }
  results=$work/results-disk
  run_opmatrix disk-full "$results" --work-dir "$small" --memory 1g --cell fault-disk-full
  show disk-full
  [ "$rc" = 1 ] || { cat "$work/disk-full.stderr" >&2; fail "exit $rc, expected 1"; }
  assert_cell "$results" fault-disk-full fail build disk_full "out of disk space"
  assert_clean "^opmatrix-fault-disk-full-" "$results"
  echo "PASS (disk-full) in $(( $(date +%s) - t_start )) s"
  exit 0
fi

[ "$mode" = cells ] || fail "unknown mode '$mode' (cells, disk-full, engine)"
results=$work/results
"$opmatrix" run --matrix "$matrix" --repo-root "$repo" --results "$results" --work-dir "$work/cells" --no-cache \
  --no-cross-load --yes --jobs 2 --memory 1g >"$work/cells.stdout" 2>"$work/cells.stderr" &
pid=$!
# Kill fault-killed's smoke container from outside once its program is sleeping.
victim=opmatrix-fault-killed-smoke-$pid killed_at=
for _ in $(seq 1 1200); do
  kill -0 "$pid" 2>/dev/null || break
  if grep -q "fault: sleeping" "$results/logs/fault-killed/smoke.log" 2>/dev/null &&
     podman container exists "$victim" 2>/dev/null; then
    podman kill "$victim" >"$work/kill.out" 2>&1 || fail "podman kill $victim: $(cat "$work/kill.out")"
    killed_at=$(( $(date +%s) - t_start ))
    break
  fi
  sleep 0.5
done
wait "$pid"
rc=$? opid=$pid pid=
show cells
[ -n "$killed_at" ] || { cat "$work/cells.stderr" >&2; fail "never saw $victim running"; }
echo "  killed $victim at ${killed_at} s"
[ "$rc" = 1 ] || { cat "$work/cells.stderr" >&2; fail "exit $rc, expected 1 (fault cells are not as expected)"; }
grep -q "8 cells run, 0 skipped, 7 not as expected" "$work/cells.stdout" || fail "unexpected summary line"
# fault-disk-full is not in the default run (default: false): said once, never run, never a result.
grep -q "the local default, 8 of the matrix's 9 cells" "$work/cells.stderr" ||
  { tail -5 "$work/cells.stderr" >&2; fail "the default run did not say it leaves fault-disk-full out"; }
[ ! -e "$results/fault-disk-full.json" ] || fail "fault-disk-full ran in the default run"
assert_cell "$results" fault-pass pass -
assert_cell "$results" fault-segfault crash smoke crash "SIGSEGV"
assert_cell "$results" fault-hang timeout smoke timeout "limit of 5 s"
assert_cell "$results" fault-oom crash smoke killed "SIGKILL.*out of memory \(the container may use 1g\)"
assert_cell "$results" fault-killed crash smoke killed "SIGKILL"
assert_cell "$results" fault-compile-error fail build compile_error "broken\.cpp:8"
assert_cell "$results" fault-missing-image error build image_error "no-such-image"
assert_cell "$results" fault-wrong-meta fail opcheck opcheck_test_faketensor_mismatch "Shapes torch.Size\(\[6\]\) and torch.Size\(\[7\]\)"
# The wrong Meta kernel is red in opcheck's test_faketensor and in compile, naming the op and the
# sub-test; the right op next to it is green in both.
python3 - "$results/fault-wrong-meta.json" <<'PY' || fail "fault-wrong-meta: see above"
import json, sys
r = json.load(open(sys.argv[1]))
def status(check, op, subtest=""):
    found = [c for c in r["checks"] if c["check"] == check and c["op"] == op and c.get("subtest", "") == subtest]
    if len(found) != 1:
        sys.exit(f"{check} {op} {subtest}: {len(found)} results, expected 1")
    return found[0]
for subtest in ("test_schema", "test_autograd_registration", "test_faketensor", "test_aot_dispatch_dynamic"):
    if status("opcheck", "good_shape", subtest)["status"] != "pass":
        sys.exit(f"opcheck good_shape {subtest} is not a pass")
bad = status("opcheck", "bad_shape", "test_faketensor")
if bad["status"] != "fail" or "bad_shape" not in bad["message"] or "test_faketensor" not in bad["message"]:
    sys.exit(f"opcheck bad_shape test_faketensor: {bad['status']}: {bad['message']}")
if status("compile", "good_shape")["status"] != "pass":
    sys.exit("compile good_shape is not a pass")
bad = status("compile", "bad_shape")
if bad["status"] != "fail" or "shape [7], expected [6]" not in bad["message"]:
    sys.exit(f"compile bad_shape: {bad['status']}: {bad['message']}")
print(f"  fault-wrong-meta: opcheck/compile red for bad_shape, green for good_shape")
PY
assert_clean "^opmatrix-.*-$opid\$" "$results"
echo "PASS (cells) in $(( $(date +%s) - t_start )) s"
