#!/usr/bin/env bash
# The atlas's GitHub workflow end to end under act (scripts/run-workflow-locally.sh --workflow
# atlas.yml, docs/github.md): atlas.yml dispatched on tests/workflows/local/atlas.yaml (torchao
# 0.18.0 and torch-harmonics 0.9.3 in Debian's CPU torch 2.6 and 2.14: wheel, plan, one job per
# runtime, report, pages), then the same pairs by a local `opmatrix atlas run` (podman) and
# `atlas report`. check_local_atlas_workflow.py then holds: every job ran and passed; `opmatrix
# diff` finds no difference between the workflow's atlas.json, its runtimes' results and the local
# run's results (both ways); each pair's verdict and the index are the same; the step summary
# holds the index; the site was published.
#   tests/workflows/run_local_atlas_workflow.sh OPMATRIX WORK_DIR
# Needs podman, the two Debian runtime images the fixture names, localhost/opmatrix-base:bookworm
# and PyPI; exit 77 with the reason otherwise (the script's own check).
set -uo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
opmatrix=$1
work=$2
atlas=tests/workflows/local/atlas.yaml
export CONTAINERS_CONF=$repo/containers/podman/containers.conf
rm -rf "$work"
mkdir -p "$work"

# The workflow: act exits 0, as every pair is measured (a red pair is a finding, not a failed job).
"$repo/scripts/run-workflow-locally.sh" --workflow atlas.yml --atlas "$atlas" --out "$work/act"
rc=$?
[ "$rc" = 77 ] && exit 77
[ "$rc" = 0 ] || { echo "FAIL: the workflow's run exited $rc, expected 0 (every pair measured)"; exit 1; }

# The same pairs here, from scratch, and their pages.
nice -n 5 "$opmatrix" atlas run --atlas "$repo/$atlas" --newest 1 --results "$work/local/atlas-results" \
  --work-dir "$work/local/work" --no-cache --yes >"$work/local.stdout" 2>"$work/local.stderr"
rc=$?
sed 's/^/  | /' "$work/local.stdout"
[ "$rc" = 0 ] || { tail -20 "$work/local.stderr"; echo "FAIL: the local atlas run exited $rc, expected 0"; exit 1; }
"$opmatrix" atlas report --atlas "$repo/$atlas" --results "$work/local/atlas-results" --output "$work/local/atlas" ||
  { echo "FAIL: the local atlas report"; exit 1; }

python3 "$repo/tests/workflows/check_local_atlas_workflow.py" "$opmatrix" "$repo/$atlas" "$work/act" "$work/local"
