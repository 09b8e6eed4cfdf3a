#!/usr/bin/env bash
# The cross-load of one run's results by an older revision's in-cell scripts and by this tree's,
# side by side with the same harness binary, images and builds (old, new, old, new): each one's
# wall time, the ratio of the medians, and whether every pair's outcome is the same.
#   bench/crossload/compare.sh OLD_REV [RESULTS_DIR] [OPMATRIX]
# Run it in the checkout whose `opmatrix run` made RESULTS_DIR (default results), nothing beside it.
set -euo pipefail
cd "$(dirname "$0")/../.."
old_rev=$1
results=${2:-results}
opmatrix=${3:-build/default/harness/opmatrix}
[ -f "$results/_cross-load.json" ] || { echo "compare.sh: $results has no _cross-load.json (run opmatrix run first)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/old"
git archive "$old_rev" scripts/cell containers | tar -x -C "$work/old"
cp "$results/_cross-load.json" "$work/kept.json"
for round in 1 2; do
  for side in old new; do
    data=$([ "$side" = old ] && echo "$work/old" || pwd)
    start=$(date +%s%N)
    OPMATRIX_DATA_DIR=$data "$opmatrix" cross-load --no-cache --results "$results" > "$work/$side-$round.log" 2>&1 ||
      { echo "compare.sh: the $side cross-load failed (round $round):" >&2; tail -5 "$work/$side-$round.log" >&2; exit 1; }
    echo "$side $round $(( ($(date +%s%N) - start) / 1000000 ))" >> "$work/times"
    cp "$results/_cross-load.json" "$work/$side-$round.json"
  done
done
cp "$work/kept.json" "$results/_cross-load.json"  # the run's own file back
python3 - "$work" <<'PY'
import json, statistics, sys
work = sys.argv[1]
times = {}
for line in open(work + "/times"):
    side, _, secs = line.split()  # milliseconds
    times.setdefault(side, []).append(int(secs) / 1000.0)
def outcomes(path):
    return {(p.get("built_in"), p.get("run_in"), p.get("abi", "aten"), p.get("namespace", "opmatrix")):
            (p.get("outcome"), p.get("computes")) for p in json.load(open(path))["pairs"]}
runs = {(s, r): outcomes("%s/%s-%d.json" % (work, s, r)) for s in ("old", "new") for r in (1, 2)}
first = runs[("old", 1)]
differ = sorted({k for o in runs.values() for k in set(o) | set(first) if o.get(k) != first.get(k)})
print("| scripts | cross-load wall time (s), each run | median |")
print("|---|---|---:|")
for side in ("old", "new"):
    print("| %s | %s | %.1f |" % (side, ", ".join("%.1f" % t for t in times[side]), statistics.median(times[side])))
print("new / old: %.2f; pairs: %d, outcomes differing between any two runs: %d"
      % (statistics.median(times["new"]) / statistics.median(times["old"]), len(first), len(differ)))
for k in differ[:10]:
    print("  differs:", k, [runs[r].get(k) for r in sorted(runs)])
PY
