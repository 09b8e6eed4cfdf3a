# Sourced by the fixture runs that use real cell images (tests/verdicts, tests/owntests): exit 77
# with the reason unless podman is there and the cells' images are built already (asked for
# with a podman that refuses to build or pull: a test never builds an image).
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
