#!/usr/bin/env bash
# Runs the README's main command as a newcomer would (from this checkout, which should be a
# fresh clone on a fresh machine) and prints its figures (figures.py): wall time, compile and
# download time, the peak disk it added (`df` of / every 20 s beside it), each cell's outcome.
#   bench/main_job/measure.sh OUT_DIR [scripts/run-matrix.sh options]
set -uo pipefail
cd "$(dirname "$0")/../.."
out=$1; shift
mkdir -p "$out"
( while true; do echo "$(date +%s) $(df -B1 --output=used / | tail -1 | tr -d ' ')"; sleep 20; done ) > "$out/disk.log" &
sampler=$!
start=$(date +%s)
scripts/run-matrix.sh "$@" > "$out/console.log" 2>&1
status=$?
wall=$(( $(date +%s) - start ))
kill "$sampler"
echo "exit $status after $wall s" >> "$out/console.log"
python3 bench/main_job/figures.py results "$out/console.log" "$out/disk.log" "$wall"
exit "$status"
