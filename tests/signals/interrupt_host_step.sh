#!/usr/bin/env bash
# Stopping `opmatrix run --engine host` while a step runs a program that left the step's
# process group (setsid: what runc does with a container's first process under podman build).
#   interrupt_host_step.sh OPMATRIX INT|TERM WORK_DIR
# Killing the step's group misses such a program; opmatrix must still leave nothing behind:
# exit 130 within 5 s, the program gone, no results for the stopped cell. Needs no podman
# (runs on every CI machine); exit 77 only where util-linux's setsid is missing.
set -uo pipefail

opmatrix=$1 sig=$2 work=$3
command -v setsid >/dev/null || { echo "SKIP: no setsid (util-linux)"; exit 77; }

nonce=hoststep$sig$$$(date +%s)
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }'; }
before() { awk -v t="$(since "$2")" -v l="$1" 'BEGIN { exit !(t < l) }'; }  # before LIMIT T0
fail() {
  echo "FAIL ($sig): $*" >&2
  [ -n "${pid:-}" ] && kill -KILL "$pid" 2>/dev/null
  pkill -KILL -f -- "$nonce" 2>/dev/null
  exit 1
}

rm -rf "$work"
repo=$work/repo
mkdir -p "$repo/scripts/cell" "$repo/kernels" "$repo/cases"
cat >"$repo/matrix.yaml" <<'YAML'
version: 1
ops: [nms]
cells:
  - id: hoststep
    torch: "2.6.0"
    torchvision: "0.21.0"
    cuda: none
    runner: host
YAML
# The probe starts a program in a session of its own and waits for it (setsid -w).
cat >"$repo/scripts/cell/python.sh" <<SH
#!/bin/sh
cp /bin/sleep "$work/sleeper-$nonce"
exec setsid -w "$work/sleeper-$nonce" 600
SH
chmod +x "$repo/scripts/cell/python.sh"
echo "signal test" >"$repo/kernels/README"
echo "signal test" >"$repo/cases/CMakeLists.txt"
# The throw-away repository is also opmatrix's data folder here: its fake python.sh runs.
mkdir -p "$repo/containers"
: >"$repo/scripts/cell/probe.py"
export OPMATRIX_DATA_DIR=$repo

"$opmatrix" run --matrix "$repo/matrix.yaml" --engine host --cell hoststep --results "$work/results" \
  --work-dir "$work/cells" >"$work/stdout" 2>"$work/stderr" &
pid=$!
t0=$(now)
until [ -n "$(pgrep -f -- "sleeper-$nonce")" ]; do
  kill -0 "$pid" 2>/dev/null || { cat "$work/stderr" >&2; fail "opmatrix ended before the probe step ran"; }
  before 60 "$t0" || fail "the probe step did not start within 60 s"
  sleep 0.1
done
sleep 0.3
t_sig=$(now)
kill -s "$sig" "$pid"
while kill -0 "$pid" 2>/dev/null && before 30 "$t_sig"; do sleep 0.05; done
exit_s=$(since "$t_sig")
kill -0 "$pid" 2>/dev/null && fail "opmatrix still running 30 s after SIG$sig"
wait "$pid"
rc=$?
pid=
left=$(pgrep -af -- "sleeper-$nonce")
echo "SIG$sig -> exit $rc after ${exit_s} s; left: ${left:-nothing}"
sed 's/^/  | /' "$work/stderr"
[ "$rc" = 130 ] || fail "exit status $rc, expected 130"
awk -v s="$exit_s" 'BEGIN { exit !(s <= 5) }' || fail "took ${exit_s} s to exit (limit 5 s)"
[ -z "$left" ] || fail "the step's setsid program outlived opmatrix: $left"
[ ! -e "$work/results/hoststep.json" ] || fail "results were written for the interrupted cell"
[ -z "$(find "$work/results" -name '*.tmp*')" ] || fail "half-written files in $work/results"
echo "PASS ($sig)"
