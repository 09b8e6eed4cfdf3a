#!/usr/bin/env bash
# The HTML report in a real headless Chromium (Debian's `chromium`): the DOM after scripts ran
# holds the compatibility table; opening a cell's link expands its details; a filter in the
# URL hides the other rows; and a screenshot is saved.
#   tests/browser/check_html_report.sh OPMATRIX RESULTS_DIR OUT_DIR [SCREENSHOT.png]
set -euo pipefail
opmatrix=$1 results=$2 out=$3 shot=${4:-$3/report.png}
browser=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$browser" ]; then
  echo "SKIP: no chromium on PATH (install Debian's chromium package: scripts/install-deps.sh --browser)"
  exit 77
fi
mkdir -p "$out"
html=$out/report.html
"$opmatrix" report --results "$results" --format html -o "$html"
flags=(--headless --no-sandbox --disable-gpu --disable-dev-shm-usage --no-first-run --virtual-time-budget=3000)

dom() { "$browser" "${flags[@]}" --dump-dom "$1" 2>/dev/null; }
fail() { echo "FAIL: $*"; exit 1; }

page=$(dom "file://$html")
grep -q '<table id="compat">' <<<"$page" || fail "no compatibility table in the DOM"
rows=$(grep -o '<tr><th scope="row">' <<<"$page" | wc -l)
[ "$rows" -ge 1 ] || fail "the table has no rows"
grep -q '<details class="cell" id="cell-' <<<"$page" || fail "no cell details"
grep -Eq '<details class="cell" id="cell-[^"]*" open' <<<"$page" && fail "a cell is open before anything was selected"

first=$(grep -o 'href="#cell-[^"]*"' <<<"$page" | head -1 | sed 's/href="#//; s/"$//')
[ -n "$first" ] || fail "the table links to no cell"
opened=$(dom "file://$html#$first")
grep -Eq "<details class=\"cell\" id=\"$first\" open" <<<"$opened" || fail "selecting $first did not expand it"

filtered=$(dom "file://$html?status=pass")
shown=$(grep -o '<tr class="check-row"[^>]*data-status="pass"[^>]*>' <<<"$filtered" | grep -vc hidden || true)
hidden=$(grep -o '<tr class="check-row"[^>]*data-status="[a-z]*"[^>]*hidden' <<<"$filtered" | grep -vc 'data-status="pass"' || true)
[ "$shown" -ge 1 ] && [ "$hidden" -ge 1 ] || fail "the status filter did not hide other rows (shown $shown, hidden $hidden)"

"$browser" "${flags[@]}" --hide-scrollbars --window-size=1280,1400 --screenshot="$shot" "file://$html" 2>/dev/null
[ -s "$shot" ] || fail "no screenshot"
echo "browser: table with $rows rows, $first expands, filter hides $hidden rows; screenshot $shot"
