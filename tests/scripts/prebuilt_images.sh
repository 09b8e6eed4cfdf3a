# Sourced by the fixture runs that use real cell images (tests/verdicts, tests/owntests,
# tests/reach): exit 77 with the reason unless podman is there and the cells' images are built
# already (asked for with a podman that refuses to build or pull: a test never builds an image),
# or, for the fixtures whose cells install requirements, unless PyPI answers.
#   require_prebuilt_images OPMATRIX MATRIX REPO WORK [opmatrix run options...]
skip() { echo "SKIP: $*"; exit 77; }

require_prebuilt_images() {
  local opmatrix=$1 matrix=$2 repo=$3 work=$4
  shift 4
  command -v podman >/dev/null || skip "podman is not installed (scripts/install-deps.sh --containers)"
  mkdir -p "$work/nobuild"
  printf '#!/bin/sh\ncase "$1" in build|pull) echo "no image builds here" >&2; exit 99;; esac\nexec %s "$@"\n' \
    "$(command -v podman)" >"$work/nobuild/podman"
  chmod +x "$work/nobuild/podman"
  PATH=$work/nobuild:$PATH "$opmatrix" run --matrix "$matrix" --repo-root "$repo" --results "$work/preflight" \
    --work-dir "$work/cells" "$@" --images-only >/dev/null 2>"$work/preflight.stderr" ||
    skip "the trixie cell image is not built (opmatrix run --images-only --cell trixie-torch2.6-cpu): $(tail -1 "$work/preflight.stderr")"
}

# A cell's requirements step fetches from PyPI: without it the run would fail for a reason that
# is not the fixture's.
#   require_pypi PACKAGE REASON
require_pypi() {
  python3 -c 'import sys, urllib.request; urllib.request.urlopen("https://pypi.org/simple/%s/" % sys.argv[1], timeout=20)' \
    "$1" 2>/dev/null || skip "PyPI is not reachable from here: $2"
}
