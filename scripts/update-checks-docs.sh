#!/usr/bin/env bash
# Rewrites the generated tables of the docs (docs/checks.md: checks and steps;
# docs/cell-contract.md: steps) from `opmatrix checks --format md`.
#   scripts/update-checks-docs.sh [OPMATRIX]   (default: build/default/harness/opmatrix)
set -euo pipefail
cd "$(dirname "$0")/.."
opmatrix=${1:-build/default/harness/opmatrix}
md=$("$opmatrix" checks --format md)
checks=$(printf '%s\n' "$md" | sed -n '/^## Checks$/,/^## Steps$/p' | sed '1,2d;$d' | sed '$d')
steps=$(printf '%s\n' "$md" | sed -n '/^## Steps$/,$p' | sed '1,2d')
for f in docs/checks.md docs/cell-contract.md; do
  CHECKS="$checks" STEPS="$steps" python3 - "$f" <<'PY'
import os, re, sys
path = sys.argv[1]
text = open(path).read()
for name in ("checks", "steps"):
    block = os.environ[name.upper()].strip("\n")
    text = re.sub(r"(<!-- opmatrix:%s:begin -->\n).*?(<!-- opmatrix:%s:end -->)" % (name, name),
                  lambda m: m.group(1) + block + "\n" + m.group(2), text, flags=re.S)
tmp = path + ".tmp"
open(tmp, "w").write(text)
os.replace(tmp, path)
PY
done
echo "updated docs/checks.md and docs/cell-contract.md"
