#!/usr/bin/env bash
# The build step of our kernels + cases, before and after a change, side by side (issue #43):
# for each cell, `opmatrix run --cell ID` of the BASE revision and then of the working tree,
# each on an empty work dir (cold ccache, fresh build tree), then `opmatrix diff` of the two
# results (every check's outcome must be the same). Prints, per cell and side, the build
# check's seconds (configure + build, wall), the cell's seconds, the number of compile steps,
# the sum of their wall times from ninja's log, and the load average while it ran: on a shared
# machine only runs at a similar load compare.
#
#   bench/compile-compare.sh [--base REV] [--out DIR] CELL...
#     --base REV   the revision to compare with (default: HEAD, i.e. the uncommitted change)
#     --out DIR    work dirs, results and summary.md (default: build/bench/compare)
#     --matrix F   the cells' matrix file, for both sides (default: each side's own matrix.yaml);
#                  e.g. a CUDA cell with fewer archs whose image is present
# Needs: podman (CONTAINERS_CONF as in containers/podman), the cells' images, the harness
# binary (build/default/harness/opmatrix). Each side is a snapshot: BASE as a git worktree,
# the working tree as its tracked and unignored files.
set -euo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
export CONTAINERS_CONF=${CONTAINERS_CONF:-$REPO/containers/podman/containers.conf}
OPMATRIX=$REPO/build/default/harness/opmatrix
BASE=HEAD
OUT=$REPO/build/bench/compare
MATRIX=""
CELLS=()
while [ $# -gt 0 ]; do
  case "$1" in
    --base) BASE=$2; shift 2 ;;
    --out) OUT=$(realpath -m "$2"); shift 2 ;;
    --matrix) MATRIX=$(realpath "$2"); shift 2 ;;
    -h|--help) sed -n '2,18p' "$0"; exit 0 ;;
    -*) echo "compile-compare.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
    *) CELLS+=("$1"); shift ;;
  esac
done
[ ${#CELLS[@]} -gt 0 ] || { echo "compile-compare.sh: name at least one cell (opmatrix list)" >&2; exit 2; }
[ -x "$OPMATRIX" ] || { echo "compile-compare.sh: no harness at $OPMATRIX (cmake --build build/default)" >&2; exit 2; }

mkdir -p "$OUT"
rm -rf "$OUT/base" "$OUT/head"
git -C "$REPO" worktree prune
git -C "$REPO" worktree add --detach "$OUT/base" "$BASE" > /dev/null
trap 'git -C "$REPO" worktree remove --force "$OUT/base" 2>/dev/null || true' EXIT
mkdir -p "$OUT/head"
git -C "$REPO" ls-files -z --cached --others --exclude-standard | (cd "$REPO" && xargs -0 cp --parents -t "$OUT/head" 2>/dev/null || true)

run_side() {  # side cell
  local side=$1 cell=$2
  rm -rf "$OUT/work-$side" "$OUT/results-$side"
  local load_before; load_before=$(cut -d' ' -f1 /proc/loadavg)
  (cd "$OUT/$side" && "$OPMATRIX" run --matrix "${MATRIX:-$OUT/$side/matrix.yaml}" --repo-root "$OUT/$side" --cell "$cell" \
     --work-dir "$OUT/work-$side" --results "$OUT/results-$side" --no-cache) > "$OUT/$side-$cell.log" 2>&1 || true
  local load_after; load_after=$(cut -d' ' -f1 /proc/loadavg)
  python3 - "$OUT" "$side" "$cell" "$load_before" "$load_after" <<'PY'
import glob, json, sys
out, side, cell, l0, l1 = sys.argv[1:]
r = json.load(open(f"{out}/results-{side}/{cell}.json"))
build = next((c for c in r["checks"] if c["check"] == "build"), {})
steps, wall = 0, 0.0
for log in glob.glob(f"{out}/work-{side}/cells/{cell}/*/.ninja_log"):
    for line in open(log):
        if line.startswith("#"): continue
        s, e, _, target, _ = line.rstrip("\n").split("\t")
        if target.endswith((".o", ".gch")):
            steps += 1; wall += (int(e) - int(s)) / 1000
print(json.dumps({"cell": cell, "side": side, "build_s": round(build.get("seconds", 0), 1),
                  "build_status": build.get("status"), "cell_s": round(r.get("seconds", 0), 1),
                  "compile_steps": steps, "compile_wall_sum_s": round(wall, 1), "load": f"{l0} -> {l1}"}))
PY
}

: > "$OUT/runs.jsonl"
for cell in "${CELLS[@]}"; do
  run_side base "$cell" >> "$OUT/runs.jsonl"
  run_side head "$cell" >> "$OUT/runs.jsonl"
done
"$OPMATRIX" diff "$OUT/results-base" "$OUT/results-head" > "$OUT/diff.md" 2>&1 || true
python3 - "$OUT" "$BASE" <<'PY'
import json, sys
out, base = sys.argv[1:]
runs = [json.loads(l) for l in open(f"{out}/runs.jsonl")]
lines = [f"| cell | side | build step (s) | cell (s) | compile steps | their wall sum (s) | load avg |", "|---|---|---:|---:|---:|---:|---|"]
for r in runs:
    lines.append(f"| {r['cell']} | {'base ' + base if r['side'] == 'base' else 'working tree'} | {r['build_s']} | {r['cell_s']} | "
                 f"{r['compile_steps']} | {r['compile_wall_sum_s']} | {r['load']} |")
for cell in dict.fromkeys(r["cell"] for r in runs):
    b, h = [next(r for r in runs if r["cell"] == cell and r["side"] == s) for s in ("base", "head")]
    if b["build_s"]:
        lines.append(f"\n{cell}: build step {h['build_s']} / {b['build_s']} s = {100 * h['build_s'] / b['build_s']:.0f} %")
diff = open(f"{out}/diff.md").read().strip().splitlines()
lines.append("\nopmatrix diff: " + (diff[-1] if diff else "(no output)"))
open(f"{out}/summary.md", "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
PY
