#!/usr/bin/env bash
# opmatrix speed benchmark (issue #6): cold, warm no-op and incremental runs of the harness,
# their per-step split, the harness's own overhead, a naive plain-loop baseline, and
# bench/RESULTS.md generated from what was measured.
#
#   bench/run-bench.sh [--cell ID]... [--skip-cold] [--skip-fresh] [--skip-naive] [--opmatrix BIN] [--out FILE]
#
# Everything runs on a snapshot of the working tree (git's tracked + unignored files) in
# $BENCH_DIR/src, with its own work dir (build trees + ccache) and results dir, so the
# benchmark neither sees nor disturbs other work in the checkout: "cold" really is an
# empty ccache and build tree (the cell's image must exist: `opmatrix run --images-only`).
#   cold         opmatrix run --no-cache, empty work dir            (per cell, one at a time)
#   warm no-op   opmatrix run over the same cells again: every cell `cached` (best of 3)
#   fresh tree   the cell's build tree wiped, ccache kept (a new cell on the shared ccache)
#   incremental  an unused constant appended to kernels/ops/cpu/nms_kernel.cpp in the
#                snapshot (restored by a trap), opmatrix run: configure + one TU + link + tests
#   naive        what a plain script would do for the same cell: podman build --no-cache of
#                the same Containerfile, cmake configure + build in a fresh folder without
#                ccache, ctest; its "warm" repeats it with podman's layer cache
#   overhead     harness wall time / sum of its container steps' seconds
# Needs: podman (rootful, CONTAINERS_CONF as in containers/podman), python3, the harness binary.
set -euo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
BENCH_DIR=${BENCH_DIR:-$REPO/build/bench}
OPMATRIX=$REPO/build/default/harness/opmatrix
OUT=$REPO/bench/RESULTS.md
CELLS=()
SKIP_COLD=0
SKIP_NAIVE=0
SKIP_FRESH=0
while [ $# -gt 0 ]; do
  case "$1" in
    --cell) CELLS+=("$2"); shift 2 ;;
    --skip-cold) SKIP_COLD=1; shift ;;
    --skip-naive) SKIP_NAIVE=1; shift ;;
    --skip-fresh) SKIP_FRESH=1; shift ;;
    --opmatrix) OPMATRIX=$(realpath "$2"); shift 2 ;;
    --out) OUT=$(realpath -m "$2"); shift 2 ;;
    -h|--help) sed -n '2,24p' "$0"; exit 0 ;;
    *) echo "run-bench.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
[ ${#CELLS[@]} -gt 0 ] || CELLS=(trixie-torch2.6-cpu)
export CONTAINERS_CONF=${CONTAINERS_CONF:-$REPO/containers/podman/containers.conf}
[ -x "$OPMATRIX" ] || { echo "run-bench.sh: no harness at $OPMATRIX (cmake --build --preset default)" >&2; exit 2; }

SRC=$BENCH_DIR/src
WORK=$BENCH_DIR/work
RES=$BENCH_DIR/results
DATA=$BENCH_DIR/data
mkdir -p "$BENCH_DIR" "$DATA"
say() { printf '[bench %s] %s\n' "$(date -u +%H:%M:%S)" "$*" >&2; }
now() { date +%s.%N; }
secs() { python3 -c "print(round($2 - $1, 2))"; }

# --- snapshot of the working tree ------------------------------------------------------
say "snapshot of $REPO -> $SRC"
rm -rf "$SRC"
mkdir -p "$SRC"
(cd "$REPO" && git ls-files -co --exclude-standard -z | grep -zv '^results/' |
  tar --null --ignore-failed-read -T - -cf - 2>/dev/null) | (cd "$SRC" && tar -xf -)
run_harness() {  # label, then opmatrix run arguments
  local label=$1; shift
  local t0 t1
  t0=$(now)
  "$OPMATRIX" run --matrix "$SRC/matrix.yaml" --work-dir "$WORK" --results "$RES" "$@" \
    > "$DATA/$label.out" 2> "$DATA/$label.err" || true
  t1=$(now)
  echo "$label $(secs "$t0" "$t1")" >> "$DATA/walls.txt"
  say "$label: $(secs "$t0" "$t1") s"
}
cell_args=()
for c in "${CELLS[@]}"; do cell_args+=(--cell "$c"); done

# --- machine ------------------------------------------------------------------------------
{
  echo "date=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "cpu=$(lscpu | sed -n 's/^Model name: *//p' | head -1)"
  echo "cores=$(nproc)"
  echo "memory=$(free -g | awk '/^Mem:/ {print $2 " GiB"}')"
  echo "os=$(. /etc/os-release; echo "$PRETTY_NAME")"
  echo "kernel=$(uname -r)"
  echo "podman=$(podman --version | awk '{print $3}')"
  echo "harness=$("$OPMATRIX" --version 2>/dev/null | head -1)"
  echo "commit=$(cd "$REPO" && git rev-parse --short HEAD)$(cd "$REPO" && git diff --quiet HEAD -- kernels cases harness || echo '+local changes')"
  echo "load_start=$(cut -d' ' -f1-3 /proc/loadavg)"
} > "$DATA/machine.txt"
[ "$SKIP_COLD" = 1 ] || : > "$DATA/walls.txt"   # --skip-cold keeps the cold figures

# --- cold ------------------------------------------------------------------------------------
if [ "$SKIP_COLD" = 0 ]; then
  rm -rf "$WORK" "$RES"
  # Per-TU wall/CPU/RSS of the cold build: ccache runs every compile (all misses) through
  # bench/tu_time.py (its prefix_command); a few ms per TU.
  mkdir -p "$WORK/ccache"
  cp "$REPO/bench/tu_time.py" "$WORK/ccache/tu_time.py"
  printf 'prefix_command = python3 /ccache/tu_time.py\n' > "$WORK/ccache/ccache.conf"
  for c in "${CELLS[@]}"; do
    say "cold: $c (empty ccache and build tree)"
    run_harness "cold-$c" --cell "$c" --no-cache
    cp "$RES/$c.json" "$DATA/cold-$c.json"
    [ -f "$WORK/ccache/tu.log" ] && mv "$WORK/ccache/tu.log" "$DATA/cold-tu-$c.log"
  done
  rm -f "$WORK/ccache/ccache.conf"
fi

# --- warm no-op --------------------------------------------------------------------------------
for i in 1 2 3; do run_harness "warm-$i" "${cell_args[@]}"; done
grep -c "cached: key" "$DATA/warm-1.err" > "$DATA/warm-cached.txt" || true

# --- warm no-op of the whole local matrix -----------------------------------------------------
# Every default local cell, without running each one cold first: the repository's results
# files are copied with the cache key the harness computes now (bench/rekey_results.cpp, the
# harness's own functions), so each cell whose last result may be reused is `cached`. Run on
# the snapshot with an empty work dir: nothing shared can be touched. Cells whose last result
# is never reused (status error/timeout) are left out and named.
LIBDIR=$(dirname "$OPMATRIX")
if [ -f "$LIBDIR/libopmatrix_core.a" ] && g++ -std=c++17 -O1 -I "$REPO/harness/src" -I "$LIBDIR/generated" \
     "$REPO/bench/rekey_results.cpp" "$LIBDIR/libopmatrix_core.a" -lfmt -lyaml-cpp -o "$DATA/rekey" 2> "$DATA/rekey-build.log"; then
  rm -rf "$BENCH_DIR/rekeyed" "$BENCH_DIR/work-rekey"
  "$DATA/rekey" "$SRC/matrix.yaml" "$REPO/results" "$BENCH_DIR/work-rekey" "$BENCH_DIR/rekeyed" > /dev/null
  "$OPMATRIX" list --matrix "$SRC/matrix.yaml" --json 2>/dev/null | python3 -c '
import json, sys, pathlib
d = pathlib.Path(sys.argv[1]); reuse, left = [], []
for c in json.load(sys.stdin):
    if not (c["default"] and "local" in c["where"] and c["runner"] == "container"): continue
    f = d / (c["id"] + ".json")
    if not f.exists(): left.append(c["id"] + " (no results)"); continue
    j = json.loads(f.read_text())
    kinds = {x.get("diagnosis", {}).get("kind") for x in j["checks"]}
    if j["status"] in ("error", "timeout") or kinds & {"disk_full", "crash", "killed", "timeout", "image_error"}:
        left.append(c["id"] + " (last result: " + j["status"] + ", never reused)")
    else: reuse.append(c["id"])
pathlib.Path(sys.argv[2]).write_text(" ".join(reuse) + "\n" + "; ".join(left) + "\n")' "$BENCH_DIR/rekeyed" "$DATA/matrix-cells.txt"
  mx_args=()
  for c in $(head -1 "$DATA/matrix-cells.txt"); do mx_args+=(--cell "$c"); done
  for i in 1 2 3; do
    t0=$(now)
    timeout 120 "$OPMATRIX" run --matrix "$SRC/matrix.yaml" --work-dir "$BENCH_DIR/work-rekey" \
      --results "$BENCH_DIR/rekeyed" --no-cross-load "${mx_args[@]}" > "$DATA/matrix-warm-$i.out" 2> "$DATA/matrix-warm-$i.err" || true
    echo "matrix-warm-$i $(secs "$t0" "$(now)")" >> "$DATA/walls.txt"
  done
  grep -c "cached: key" "$DATA/matrix-warm-1.err" > "$DATA/matrix-cached.txt" || true
  say "whole-matrix warm no-op: $(grep matrix-warm "$DATA/walls.txt" | tr '\n' ' ')"
fi

# --- fresh build tree, warm ccache (a new cell, or a wiped tree, on the shared ccache) -------
for c in "${CELLS[@]}"; do
  [ "$SKIP_FRESH" = 0 ] || break
  rm -rf "$WORK/cells/$c"
  run_harness "fresh-$c" --cell "$c" --no-cache
  cp "$RES/$c.json" "$DATA/fresh-$c.json"
done

# --- incremental: one kernel source edited (in the snapshot), restored by a trap --------------
KSRC=$(ls "$SRC"/kernels/ops/cpu/nms_kernel.cpp)
cp -p "$KSRC" "$DATA/nms_kernel.cpp.orig"
restore() { cp -p "$DATA/nms_kernel.cpp.orig" "$KSRC"; }
trap restore EXIT INT TERM
# A real code change (a comment alone is served by ccache: the preprocessed text is the same).
echo "namespace { [[maybe_unused]] const long opmatrix_bench_edit_$(date +%s%N) = 0; }" >> "$KSRC"
for c in "${CELLS[@]}"; do
  run_harness "incr-$c" --cell "$c"
  cp "$RES/$c.json" "$DATA/incr-$c.json"
done
restore
trap - EXIT INT TERM

# --- naive baseline ---------------------------------------------------------------------------
if [ "$SKIP_NAIVE" = 0 ]; then
  "$OPMATRIX" list --matrix "$SRC/matrix.yaml" --json > "$DATA/cells.json" 2>/dev/null
  for c in "${CELLS[@]}"; do
    read -r cf args < <(python3 - "$DATA/cells.json" "$c" <<'PY'
import json, sys
cell = next(x for x in json.load(open(sys.argv[1])) if x["id"] == sys.argv[2])
suite = cell["image"]["args"].get("SUITE", "bookworm")
args = {"BASE": "localhost/opmatrix-base:" + suite, **cell["image"]["args"]}
print(cell["image"]["containerfile"], " ".join(f"--build-arg={k}={v}" for k, v in args.items()))
PY
)
    tag=localhost/opmatrix-bench-naive:$c
    nb=$BENCH_DIR/naive-$c
    rm -rf "$nb"; mkdir -p "$nb/build"
    say "naive: $c: podman build --no-cache"
    t0=$(now)
    # shellcheck disable=SC2086
    podman build --no-cache -q -f "$SRC/$cf" $args -t "$tag" "$SRC/scripts/cell" > "$DATA/naive-image-$c.log" 2>&1
    t1=$(now)
    prefix=$(python3 -c "import json;print(json.load(open('$DATA/cold-$c.json'))['versions'].get('torch_cmake_prefix',''))" 2>/dev/null ||
             echo /usr/lib/x86_64-linux-gnu/cmake)
    cuda=OFF
    say "naive: $c: configure + build (no ccache, fresh folder)"
    podman run --rm --network=none -v "$SRC:/src:ro" -v "$nb/build:/build" -w /build "$tag" \
      cmake -S /src/cases -B /build -G Ninja -DCMAKE_BUILD_TYPE=Release "-DCMAKE_PREFIX_PATH=$prefix" \
      -DOPMATRIX_WITH_CUDA=$cuda > "$DATA/naive-configure-$c.log" 2>&1
    t2=$(now)
    podman run --rm --network=none -v "$SRC:/src:ro" -v "$nb/build:/build" -w /build "$tag" \
      cmake --build /build -j "$(nproc)" > "$DATA/naive-build-$c.log" 2>&1
    t3=$(now)
    say "naive: $c: ctest"
    podman run --rm --network=none -v "$SRC:/src:ro" -v "$nb/build:/build" -w /build -e OPMATRIX_EXPECT_CUDA=0 "$tag" \
      ctest --test-dir /build -j "$(nproc)" > "$DATA/naive-test-$c.log" 2>&1 || true
    t4=$(now)
    say "naive: $c: podman build again (layer cache: the naive loop's warm run)"
    podman build -q -f "$SRC/$cf" $args -t "$tag" "$SRC/scripts/cell" > "$DATA/naive-image2-$c.log" 2>&1
    t5=$(now)
    echo "$c image $(secs "$t0" "$t1") configure $(secs "$t1" "$t2") build $(secs "$t2" "$t3") test $(secs "$t3" "$t4") image_cached $(secs "$t4" "$t5")" >> "$DATA/naive.txt"
    podman rmi "$tag" > /dev/null 2>&1 || true   # only the image this script made
    rm -rf "$nb"
  done
fi
echo "load_end=$(cut -d' ' -f1-3 /proc/loadavg)" >> "$DATA/machine.txt"

python3 "$REPO/bench/render_results.py" "$DATA" "$OUT" "${CELLS[@]}"
say "wrote $OUT"
