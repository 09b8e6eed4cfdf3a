#!/usr/bin/env bash
# The fixture atlas (tests/atlas/atlas.yaml: torchao 0.18.0 and fbgemm-gpu-cpu 1.0.0 from PyPI x
# Debian trixie's torch 2.6 and PyPI torch 2.15 CUDA 13.2), by a real `opmatrix atlas run` in real
# containers, then `opmatrix atlas report`; check_atlas.py holds each pair to what was checked by
# hand in the same images; a rerun with nothing new runs nothing (under a --disk-budget that keeps
# the images that were there); `opmatrix diff` reads atlas.json.
#   run_atlas.sh OPMATRIX WORK_DIR
# Needs podman, both runtimes' images (never built here) and PyPI; exit 77 with the reason otherwise.
set -uo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
opmatrix=$1 work=$2 atlas=$repo/tests/atlas/atlas.yaml
source "$repo/tests/scripts/fixture_run.sh"
rm -rf "$work" && mkdir -p "$work"
command -v podman >/dev/null || skip "podman is not installed (scripts/install-deps.sh --containers)"
mkdir -p "$work/nobuild"
printf '#!/bin/sh\ncase "$1" in build|pull) echo "no image builds here" >&2; exit 99;; esac\nexec %s "$@"\n' \
  "$(command -v podman)" >"$work/nobuild/podman"
chmod +x "$work/nobuild/podman"
PATH=$work/nobuild:$PATH "$opmatrix" atlas run --atlas "$atlas" --results "$work/preflight" --work-dir "$work/cells" \
  --images-only >/dev/null 2>"$work/preflight.stderr" ||
  skip "the runtimes' images are not built (opmatrix run --images-only --cell trixie-torch2.6-cpu --cell pypi-torch2.15.0-cu13.2): $(tail -1 "$work/preflight.stderr")"
require_pypi torchao "the pairs fetch their wheels from PyPI"

run() { "$opmatrix" atlas run --atlas "$atlas" --results "$work/results" --work-dir "$work/cells" --yes "$@"; }
start=$(date +%s.%N)
run --no-cache >"$work/run.stdout" 2>"$work/run.stderr" || { tail -20 "$work/run.stderr"; echo "FAIL: atlas run exited $?"; exit 1; }
first=$(echo "$(date +%s.%N) - $start" | bc)
sed 's/^/  | /' "$work/run.stdout"
start=$(date +%s.%N)
# The rerun under a disk budget far below the images: runtime by runtime, and the images that were
# there before the run stay (only images the run built itself are ever removed).
run --disk-budget 0.001 >"$work/rerun.stdout" 2>"$work/rerun.stderr" ||
  { tail -20 "$work/rerun.stderr"; echo "FAIL: atlas rerun exited $?"; exit 1; }
grep -q "removing" "$work/rerun.stdout" && { cat "$work/rerun.stdout"; echo "FAIL: --disk-budget removed an image the run did not build"; exit 1; }
PATH=$work/nobuild:$PATH "$opmatrix" atlas run --atlas "$atlas" --results "$work/preflight" --work-dir "$work/cells" \
  --images-only >/dev/null 2>&1 || { echo "FAIL: a runtime image is gone after the --disk-budget rerun"; exit 1; }
again=$(echo "$(date +%s.%N) - $start" | bc)
echo "atlas of 4 pairs: ${first} s cold, ${again} s rerun with nothing new"
"$opmatrix" atlas report --atlas "$atlas" --results "$work/results" --output "$work/atlas" || { echo "FAIL: no atlas report"; exit 1; }
"$opmatrix" diff "$work/atlas/atlas.json" "$work/results" >"$work/diff.md" ||
  { cat "$work/diff.md"; echo "FAIL: opmatrix diff of atlas.json against its own results found differences"; exit 1; }
python3 "$repo/tests/atlas/check_atlas.py" "$work/atlas" "$work/rerun.stderr"
