#!/usr/bin/env bash
# The atlas's HTML page in a real headless Chromium (Debian's `chromium`), from the results of one
# real run of the fixture atlas (tests/data/atlas): the DOM holds the index table with a row per
# library and a link per pair; following a pair's link opens its details; a screenshot is saved.
#   tests/browser/check_atlas_html.sh OPMATRIX OUT_DIR
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
opmatrix=$1 out=$2
browser=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$browser" ]; then
  echo "SKIP: no chromium on PATH (install Debian's chromium package: scripts/install-deps.sh --browser)"
  exit 77
fi
rm -rf "$out" && mkdir -p "$out"
"$opmatrix" atlas report --atlas "$repo/tests/data/atlas/atlas.yaml" --results "$repo/tests/data/atlas/results" --output "$out"
html=$out/index.html
flags=(--headless --no-sandbox --disable-gpu --disable-dev-shm-usage --no-first-run --virtual-time-budget=3000)
dom() { "$browser" "${flags[@]}" --dump-dom "$1" 2>/dev/null; }
fail() { echo "FAIL: $*"; exit 1; }

page=$(dom "file://$html")
grep -q '<table id="atlas">' <<<"$page" || fail "no atlas table in the DOM"
rows=$(sed -n '/<table id="atlas">/,/<\/table>/p' <<<"$page" | grep -o '<th scope="row">' | wc -l)
[ "$rows" = 2 ] || fail "the index has $rows library rows, not 2"
grep -q '<td class="notrun"><a href="#fbgemm-gpu-cpu-1.0.0--trixie-torch2.6-cpu"' <<<"$page" ||
  fail "fbgemm-gpu-cpu in trixie (no cp313 wheel) is not 'not run'"
grep -Eq '<details class="pair" id="[^"]*" open' <<<"$page" && fail "a pair is open before anything was selected"
pair=torchao-0.18.0--trixie-torch2.6-cpu
opened=$(dom "file://$html#$pair")
grep -Eq "<details class=\"pair\" id=\"$pair\" open" <<<"$opened" || fail "following #$pair did not open it"
grep -q 'libcudart.so.13' <<<"$opened" || fail "the pair's details do not name its missing CUDA runtime"
"$browser" "${flags[@]}" --hide-scrollbars --window-size=1280,900 --screenshot="$out/atlas.png" "file://$html" 2>/dev/null
[ -s "$out/atlas.png" ] || fail "no screenshot"
echo "browser: atlas index with $rows libraries, #$pair opens with its evidence; screenshot $out/atlas.png"
