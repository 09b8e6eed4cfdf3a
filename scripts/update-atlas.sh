#!/usr/bin/env bash
# Renders the published atlas (docs/atlas/) from the atlas already published and the results of
# the atlas runs given, merged pair by pair, each pair's latest run taken (scripts/merge_results.py):
# an atlas measured over many runs and sessions (one runtime here, a library there) grows without
# losing what an earlier run measured, and a pair measured again replaces its older result.
#   scripts/update-atlas.sh [SOURCE...]
# SOURCE: an atlas results folder (`opmatrix atlas run --results DIR`) or a published atlas.json;
# default: docs/atlas/atlas.json atlas-results. The atlas file is ./atlas.yaml ($OPMATRIX_ATLAS to change).
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -gt 0 ] || set -- docs/atlas/atlas.json atlas-results
opmatrix=build/default/harness/opmatrix
[ -x "$opmatrix" ] || { echo "update-atlas: build the harness first (cmake --preset default && cmake --build --preset default)" >&2; exit 2; }
for source in "$@"; do
  [ -e "$source" ] || { echo "update-atlas: $source: no such results folder or atlas.json" >&2; exit 2; }
done

merged=$(mktemp -d)
trap 'rm -rf "$merged"' EXIT
python3 scripts/merge_results.py "$merged/results" "$@" >&2
"$opmatrix" atlas report --atlas "${OPMATRIX_ATLAS:-atlas.yaml}" --results "$merged/results" --output docs/atlas
