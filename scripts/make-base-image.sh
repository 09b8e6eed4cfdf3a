#!/usr/bin/env bash
# Makes the local base image localhost/opmatrix-base:SUITE for a Debian suite, the local
# stand-in for Docker Hub's debian:SUITE (which this build host cannot reach).
#   scripts/make-base-image.sh [--force] [--mirror URL] SUITE     (bookworm, trixie, sid, forky)
# mmdebstrap minbase; its apt sources carry main contrib non-free (the CUDA images need
# contrib/non-free). Skips the work when the image already exists, unless --force.
# Prints the image id on stdout (progress goes to stderr).
# Honours CONTAINERS_CONF; defaults it to the repo's containers/podman/containers.conf.
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
: "${CONTAINERS_CONF:=$here/containers/podman/containers.conf}"
export CONTAINERS_CONF

force=0 mirror=http://deb.debian.org/debian suite=
while [ $# -gt 0 ]; do
  case "$1" in
    --force) force=1 ;;
    --mirror) mirror=$2; shift ;;
    -h|--help) sed -n '2,8p' "$0"; exit 0 ;;
    -*) echo "make-base-image: unknown option $1" >&2; exit 2 ;;
    *) suite=$1 ;;
  esac
  shift
done
[ -n "$suite" ] || { echo "usage: make-base-image.sh [--force] [--mirror URL] SUITE" >&2; exit 2; }

image=localhost/opmatrix-base:$suite
if [ "$force" = 0 ] && podman image exists "$image"; then
  echo "make-base-image: $image exists (use --force to rebuild)" >&2
  podman image inspect --format '{{.Id}}' "$image"
  exit 0
fi

opts=(--variant=minbase --components=main,contrib,non-free --format=tar
      --aptopt='APT::Install-Recommends "false"' --dpkgopt='path-exclude=/usr/share/doc/*'
      --dpkgopt='path-include=/usr/share/doc/*/copyright')
# sid/forky: the mirror's Release files can read as expired on this host's clock.
case "$suite" in
  sid|unstable|forky|testing) opts+=(--aptopt='Acquire::Check-Valid-Until "false"') ;;
esac

echo "make-base-image: mmdebstrap $suite from $mirror" >&2
start=$(date +%s)
id=$(mmdebstrap "${opts[@]}" "$suite" - "$mirror" \
       | podman import --change 'CMD ["/bin/bash"]' --message "opmatrix base $suite" - "$image" \
       | tail -n1)
echo "make-base-image: $image in $(( $(date +%s) - start )) s" >&2
podman image inspect --format '{{.Id}}' "$image"
