#!/usr/bin/env bash
# Stopping `opmatrix run` with SIGINT or SIGTERM while a cell's image is being built.
#   interrupt_run.sh OPMATRIX INT|TERM WORK_DIR
# A throw-away repository with two cells, run one at a time:
#   quick — its image builds in a second; with a fake probe and no compiler in the image it
#           ends as `fail`, a result that the next run may reuse;
#   slow  — its image build has a RUN step that sleeps for ten minutes.
# The test waits until that RUN step is running, sends the signal to opmatrix, and checks:
# exit status 130 within 5 s; no podman build/run process, no container (the stopped build's
# working containers included), no sleeping build step left; quick.json kept and intact, no slow.json, no half-written (*.tmp.*) file; and a
# second run reports quick as `cached` (then is stopped the same way, checked the same way).
# Exit 77 (CTest SKIP) with the reason where podman or the local base image is missing.
set -uo pipefail

opmatrix=$1 sig=$2 work=$3
source_dir=$(cd "$(dirname "$0")/../.." && pwd)
export CONTAINERS_CONF=$source_dir/containers/podman/containers.conf
base=localhost/opmatrix-base:trixie

command -v podman >/dev/null || { echo "SKIP: podman is not installed (scripts/install-deps.sh --containers)"; exit 77; }
podman image exists "$base" 2>/dev/null ||
  { echo "SKIP: no $base image (make it with scripts/make-base-image.sh trixie)"; exit 77; }

fail() { echo "FAIL ($sig): $*" >&2; cleanup; exit 1; }
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }'; }
before() { awk -v t="$(since "$2")" -v l="$1" 'BEGIN { exit !(t < l) }'; }  # before LIMIT T0

# Everything this test starts carries the nonce: the build arg (podman's command line) and the
# sleeping program's name (the build container's process), so nobody else's work is counted.
nonce=sig$sig$$$(date +%s)
leftovers() {
  pgrep -af -- "$nonce" | grep -v -e "interrupt_run.sh" -e pgrep || true
  # Step containers are named opmatrix-CELL-STEP-PID (PID: opmatrix's).
  podman ps -a --format '{{.Names}}' 2>/dev/null | grep -E -- "^opmatrix-(quick|slow)-.*-$opid\$" || true
  # Build containers (podman's --external): ours are those whose command names the nonce.
  podman ps -a --external --no-trunc --format '{{.ID}} {{.Names}} {{.Command}}' 2>/dev/null | grep -- "$nonce" || true
}
# podman build's own working containers (storage only, `podman ps -a --external`): a stopped
# build leaves them there, pinning its layers, unless the harness removes them. All of them are
# counted (another user's build could add one meanwhile); the test fails on those of the slow
# build, named after its FROM image or after one of its layers (its image log names them).
working_containers() { podman ps -a --external --format '{{.ID}} {{.Status}}' 2>/dev/null | awk '$2 == "Storage" { print $1 }' | sort; }
slow_build_working_containers() {  # IMAGE_LOG IDS_BEFORE
  local names=opmatrix-signals-test layer
  for layer in $(sed -n 's/^--> \(Using cache \)\{0,1\}\([0-9a-f]\{11,12\}\).*/\2/p' "$1" 2>/dev/null | sort -u); do
    names="$names|$layer"
  done
  podman ps -a --external --format '{{.ID}} {{.Names}}' 2>/dev/null | grep -E -- " ($names)[0-9a-f]*-working-container" |
    grep -v -F -f <(echo "$2") || true  # not those there before this run
}
quick_image=
cleanup() {
  [ -n "${pid:-}" ] && kill -KILL "$pid" 2>/dev/null
  pkill -KILL -f -- "$nonce" 2>/dev/null  # the podman build and its RUN step, after a failure
  [ -n "$quick_image" ] && podman rmi "$quick_image" >/dev/null 2>&1
  # The slow build's intermediate image (its ARG layer, only this test makes it) and the
  # working containers the stopped builds left on it, named after it.
  local layer
  podman ps -a --external --format '{{.ID}} {{.Names}}' 2>/dev/null |
    awk 'index($2, "opmatrix-signals-test-working-container") == 1 { print $1 }' | xargs -r podman rm -f >/dev/null 2>&1
  for layer in $(sed -n 's/^--> \(Using cache \)\{0,1\}\([0-9a-f]\{11,12\}\).*/\2/p' "$work"/*.image.log 2>/dev/null | sort -u); do
    podman ps -a --external --format '{{.ID}} {{.Names}}' 2>/dev/null | awk -v n="$layer-working-container" 'index($2, n) == 1 { print $1 }' |
      xargs -r podman rm -f >/dev/null 2>&1
    podman rmi "$layer" >/dev/null 2>&1
  done
  # Both arguments: `podman untag IMAGE` alone would remove every name of the base image.
  podman untag localhost/opmatrix-signals-test:trixie localhost/opmatrix-signals-test:trixie >/dev/null 2>&1
  true
}

rm -rf "$work"
podman tag "$base" localhost/opmatrix-signals-test:trixie || fail "cannot tag $base"
repo=$work/repo results=$work/results
mkdir -p "$repo/containers/podman" "$repo/scripts/cell" "$repo/kernels" "$repo/cases" "$results"
cp "$CONTAINERS_CONF" "$repo/containers/podman/"  # the engine passes <repo>/containers/podman/containers.conf
cat >"$repo/matrix.yaml" <<YAML
version: 1
ops: [nms]
cells:
  - id: quick
    torch: "2.6.0"
    torchvision: "0.21.0"
    cuda: none
    image: {containerfile: containers/quick.Containerfile, args: {SUITE: trixie}}
  - id: slow
    torch: "2.6.0"
    torchvision: "0.21.0"
    cuda: none
    image: {containerfile: containers/slow.Containerfile, args: {SUITE: trixie, NONCE: "$nonce"}}
YAML
# A label gives the quick image its own id (removing its tag never touches the base).
printf 'ARG SUITE=trixie\nARG BASE=debian:${SUITE}\nFROM ${BASE}\nLABEL opmatrix.test=signals\n' \
  >"$repo/containers/quick.Containerfile"
# FROM a name of the base that only this test uses: podman names a build's working container
# after its FROM image, and a stopped build leaves that container in storage; so the test
# can find and remove its own (the engine's BASE arg goes unused here).
cat >"$repo/containers/slow.Containerfile" <<'CF'
FROM localhost/opmatrix-signals-test:trixie
ARG NONCE
RUN echo "opmatrix-slow-step-started" && cp /bin/sleep /tmp/opmatrix-slow-$NONCE && exec /tmp/opmatrix-slow-$NONCE 600
CF
# The cell's Python, faked: the probe finds the declared versions, torchvision is missing.
cat >"$repo/scripts/cell/python.sh" <<'SH'
#!/bin/sh
case "$1" in
  */probe.py) echo '{"torch": "2.6.0", "torchvision": "0.21.0"}' ;;
  *) echo "this test image has no torchvision" >&2; exit 1 ;;
esac
SH
chmod +x "$repo/scripts/cell/python.sh"
echo "signal test" >"$repo/kernels/README"
echo "signal test" >"$repo/cases/CMakeLists.txt"
# The throw-away repository is also opmatrix's data folder here: its fake scripts/cell and
# containers/ are the ones the run mounts and builds from.
: >"$repo/scripts/cell/probe.py"
export OPMATRIX_DATA_DIR=$repo
"$opmatrix" validate --matrix "$repo/matrix.yaml" || fail "the test matrix is invalid"

# One run, stopped with the signal once the slow RUN step is running; $1 names the run.
run_and_stop() {
  local run=$1 log=$work/$1.stderr
  rm -rf "$results/logs/slow"  # the last run's log already says the step started
  # --yes: the disk estimate takes the test's tiny Containerfile for a pypi image (8 GB).
  "$opmatrix" run --matrix "$repo/matrix.yaml" --results "$results" --work-dir "$work/cells" \
    --pip-cache "$work/pip" --jobs 1 --build-jobs 1 --yes >"$work/$run.stdout" 2>"$log" &
  pid=$! opid=$!
  local t0=$(now)
  local storage_before=$(working_containers)
  # The step's own output line (the log also echoes the RUN line that contains the words). The
  # look-ahead starts the slow image while the quick cell still runs: wait for the quick cell's
  # end too (its result line, or its reuse), so that a loaded machine cannot stop it half-way.
  until grep -qx "opmatrix-slow-step-started" "$results/logs/slow/image.log" 2>/dev/null &&
        [ -n "$(pgrep -f -- "opmatrix-slow-$nonce")" ] &&
        grep -Eq "quick: (fail \(|cached)" "$log"; do
    kill -0 "$pid" 2>/dev/null || { cat "$log" >&2; fail "$run: opmatrix ended before the slow image step"; }
    before 300 "$t0" || fail "$run: the slow image step did not start within 300 s"
    sleep 0.2
  done
  sleep 0.5  # the RUN step's sleep is running now
  grep -q "quick: " "$log" || fail "$run: the quick cell did not run first"

  local t_sig=$(now)
  kill -s "$sig" "$pid"
  while kill -0 "$pid" 2>/dev/null && before 30 "$t_sig"; do sleep 0.05; done
  local exit_s=$(since "$t_sig")
  cp "$results/logs/slow/image.log" "$work/$run.image.log" 2>/dev/null
  kill -0 "$pid" 2>/dev/null && { cat "$log" >&2; fail "$run: opmatrix still running 30 s after SIG$sig"; }
  wait "$pid"
  local rc=$?
  pid=
  local left=$(leftovers)
  local gone_s=$exit_s first_left=$left
  # How long the leftovers take to go, if any (reported; the test fails on them anyway).
  while [ -n "$left" ] && before 60 "$t_sig"; do sleep 0.2; left=$(leftovers); gone_s=$(since "$t_sig"); done
  local new_storage=$(comm -13 <(echo "$storage_before") <(working_containers) | grep -c . || true)
  echo "$run: SIG$sig -> exit $rc after ${exit_s} s; build processes and containers gone after ${gone_s} s;" \
       "$new_storage new podman-build working container(s) in storage"
  sed 's/^/  | /' "$log"
  [ "$rc" = 130 ] || fail "$run: exit status $rc, expected 130"
  awk -v s="$exit_s" 'BEGIN { exit !(s <= 5) }' || fail "$run: took ${exit_s} s to exit (limit 5 s)"
  [ -z "$left" ] || fail "$run: left behind for 60 s:"$'\n'"$left"
  local slow_left=$(slow_build_working_containers "$work/$run.image.log" "${storage_before:-none}")
  [ -z "$slow_left" ] || fail "$run: the stopped build's working containers are left in storage (they pin its layers):"$'\n'"$slow_left"
  [ -z "$first_left" ] || fail "$run: left behind when opmatrix exited (gone $(awk -v a="$gone_s" -v b="$exit_s" 'BEGIN{print a-b}') s later):"$'\n'"$first_left"

  # Results: the finished cell kept, intact; nothing for the stopped one; nothing half-written.
  [ -f "$results/quick.json" ] || fail "$run: quick.json is missing"
  python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); assert r["status"] == "fail", r["status"]' \
    "$results/quick.json" || fail "$run: quick.json is not an intact result with status fail"
  [ ! -e "$results/slow.json" ] || fail "$run: slow.json was written for an interrupted cell"
  local partial=$(find "$results" -name '*.tmp*' -o -name '*.part' -o -name '*~')
  [ -z "$partial" ] || fail "$run: half-written files: $partial"
  grep -q "slow: interrupted" "$log" || fail "$run: no 'interrupted' line for the slow cell"
}

run_and_stop first
quick_image=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["image"])' "$results/quick.json")
cp "$results/quick.json" "$work/quick.first.json"
run_and_stop second
grep -q "quick: cached" "$work/second.stderr" || fail "second: the quick cell was not reused (no 'quick: cached')"
grep -E '^quick +fail .*cached' "$work/second.stdout" >/dev/null || fail "second: the summary does not show quick as cached"
cmp -s "$results/quick.json" "$work/quick.first.json" || fail "second: quick.json changed though it was cached"
cleanup
echo "PASS ($sig)"
