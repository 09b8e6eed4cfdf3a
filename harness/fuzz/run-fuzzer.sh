#!/usr/bin/env bash
# Runs the matrix.yaml fuzzer for a bounded time and fails on any crash, keeping the input.
#   harness/fuzz/run-fuzzer.sh [SECONDS]          (default 60; builds the `fuzz` preset: the sanitize build)
# Seeds: the bad-matrix corpus, the valid test matrix, matrix.yaml and the YAML examples of
# docs/. The corpus the fuzzer grows lives in build/sanitize/fuzz/corpus (kept between runs, so each
# run starts where the last one stopped); crashing inputs go to build/sanitize/fuzz/crashes/.
# Prints the executions, exec/s and coverage of the run.
set -euo pipefail
cd "$(dirname "$0")/../.."

seconds=${1:-60}
jobs=${OPMATRIX_FUZZ_BUILD_JOBS:-2}
cmake --preset fuzz >/dev/null
cmake --build --preset fuzz -j "$jobs"

out=build/sanitize/fuzz
fuzzer=build/sanitize/harness/fuzz/matrix_fuzzer
seeds=$out/seeds corpus=$out/corpus crashes=$out/crashes
rm -rf "$seeds"
mkdir -p "$seeds" "$corpus" "$crashes"
# Seeds are copied flat (libFuzzer reads one folder level), named after where they came from.
for f in tests/data/malformed/*.yaml tests/data/valid/*.yaml matrix.yaml; do
  cp "$f" "$seeds/$(echo "$f" | tr / _)"
done
# The ```yaml blocks of the docs, one seed each.
for doc in docs/*.md; do
  awk -v base="$seeds/$(basename "$doc" .md)" '
    /^```yaml/ { n++; out = base "_" n ".yaml"; inside = 1; next }
    /^```/     { inside = 0; next }
    inside     { print > out }' "$doc"
done
echo "run-fuzzer: $(ls "$seeds" | wc -l) seeds, $(ls "$corpus" | wc -l) inputs in $corpus, ${seconds} s"

log=$out/fuzz.log
# ASan/UBSan stop at the first report; libFuzzer writes the crashing input under $crashes/.
# -rss_limit_mb / -timeout: a blow-up in memory or time is a finding too (the loader has limits).
set +e
ASAN_OPTIONS=halt_on_error=1:detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
  "$fuzzer" "$corpus" "$seeds" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
  -max_len=65536 -dict=harness/fuzz/matrix.dict -artifact_prefix="$crashes/" -print_final_stats=1 \
  >"$log" 2>&1
rc=$?
set -e

# The last status line ("#N DONE cov: C ft: F corp: K/S exec/s: E") and the final stats.
grep -E '^#[0-9]+[[:space:]]+(DONE|pulse|NEW|REDUCE|INITED)' "$log" | tail -n 1 || true
grep -E '^stat::' "$log" || true
if [ "$rc" != 0 ] || ls "$crashes" | grep -q .; then
  grep -E 'ERROR|SUMMARY|runtime error' "$log" | head -n 20 || true
  echo "run-fuzzer: FAILED (exit $rc); crashing inputs kept in $crashes/:" >&2
  ls -l "$crashes" >&2
  echo "reproduce: $fuzzer $crashes/<file>" >&2
  exit 1
fi
echo "run-fuzzer: ok, no crash in ${seconds} s (log: $log)"
