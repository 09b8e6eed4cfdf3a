#!/usr/bin/env bash
# The GitHub workflow end to end under act (scripts/run-workflow-locally.sh, docs/github.md):
# matrix.yml dispatched on tests/workflows/local/matrix.yaml (wfops in Debian's torch 2.6, where
# it works, torch 1.13, where its build fails, and PyPI's CUDA 13.2 torch 2.15), then the same cells by a local
# `opmatrix run` (podman). check_local_workflow.py then holds: every job ran and passed or failed
# as its cell did; `opmatrix diff` finds no difference between the workflow's report and the local
# run's results (both ways); the JUnit file has one testcase per check result; the step summary
# holds the verdict table; the site was published.
#   tests/workflows/run_local_workflow.sh OPMATRIX WORK_DIR
# Needs podman, the three cell images the fixture names, localhost/opmatrix-base:bookworm
# and PyPI; exit 77 with the reason otherwise (the script's own check).
set -uo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
opmatrix=$1
work=$2
matrix=tests/workflows/local/matrix.yaml
export CONTAINERS_CONF=$repo/containers/podman/containers.conf
rm -rf "$work"
mkdir -p "$work"

# The workflow: act exits 1, as the torch 1.13 cell's job fails.
"$repo/scripts/run-workflow-locally.sh" --matrix "$matrix" --out "$work/act"
rc=$?
[ "$rc" = 77 ] && exit 77
[ "$rc" = 1 ] || { echo "FAIL: the workflow's run exited $rc, expected 1 (one red cell)"; exit 1; }

# The same cells here, from scratch.
nice -n 5 "$opmatrix" run --matrix "$repo/$matrix" --results "$work/local/results" --work-dir "$work/local/cells" \
  --no-cache --yes >"$work/local.stdout" 2>"$work/local.stderr"
rc=$?
sed 's/^/  | /' "$work/local.stdout"
[ "$rc" = 1 ] || { tail -20 "$work/local.stderr"; echo "FAIL: the local run exited $rc, expected 1 (one red cell)"; exit 1; }

python3 "$repo/tests/workflows/check_local_workflow.py" "$opmatrix" "$work/act" "$work/local/results"
