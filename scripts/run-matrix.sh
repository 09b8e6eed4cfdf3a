#!/usr/bin/env bash
# The main job (README): installs what it needs (build tools, podman, mmdebstrap), builds
# the harness, and runs the local matrix: every cell of matrix.yaml's default local set in
# its own container; cells that cannot run here are reported as skipped with the reason;
# then renders results/report.md and results/report.html.
#   scripts/run-matrix.sh [opmatrix run options, e.g. --cell ID --jobs 2]
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh --harness --containers
cmake --preset default -DOPMATRIX_HOST_CELL_TESTS=OFF >/dev/null
cmake --build --preset default --target opmatrix
opmatrix=build/default/harness/opmatrix
"$opmatrix" validate
status=0
"$opmatrix" run "$@" || status=$?
# The report is rendered from whatever results exist, also when a cell failed; a run that
# started nothing leaves nothing to report (`report` exits 3 and says so: no empty report).
report=0
"$opmatrix" report --results results --format md -o results/report.md || report=$?
if [ "$report" = 0 ] || [ "$report" = 2 ]; then
  "$opmatrix" report --results results --format html -o results/report.html || true
  echo "report: results/report.md, results/report.html"
fi
exit "$status"
