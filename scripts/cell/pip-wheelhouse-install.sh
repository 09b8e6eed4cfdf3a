#!/usr/bin/env bash
# pip install through a shared wheelhouse, so that the same 2-3 GB of torch/NVIDIA wheels
# are fetched once per machine, not once per image or venv.
#
# usage: pip-wheelhouse-install.sh PYTHON [--target DIR] [--no-deps] [--pins LIST] REQUIREMENT...
#   1. PYTHON -m pip download -d WHEELHOUSE REQUIREMENT...  (files already there are reused:
#      pip prints "File was already downloaded"; only new files cross the network)
#   2. PYTHON -m pip install --no-index --no-deps FILES      (exactly the files step 1
#      resolved, so what is installed never depends on what else the wheelhouse holds)
#   --pins LIST: instead of step 2, append the resolved files to LIST, one per line (the
#      pypi image resolves once, then installs in layers: wheel-layers.py)
#
# WHEELHOUSE, the first that applies:
#   $OPMATRIX_WHEELHOUSE;
#   /wheelhouse when it is a mounted writable volume (`-v HOSTDIR:/wheelhouse`);
#   /root/.cache/pip/wheelhouse when /root/.cache/pip is a mounted volume (what the harness
#     mounts: `-v /var/cache/opmatrix/pip:/root/.cache/pip`, so the host wheelhouse is
#     /var/cache/opmatrix/pip/wheelhouse; host venvs use the same folder);
#   else a temporary directory removed afterwards (GitHub: no volume, nothing to set up).
# Why not pip's own cache: pip's HTTP cache only stores responses with caching headers, and
# the files behind this build host's HTTPS proxy come without them (nothing is ever cached).
# Honours PIP_INDEX_URL / PIP_EXTRA_INDEX_URL / PIP_CERT; empty values are dropped.
set -euo pipefail
die() { echo "pip-wheelhouse-install: $*" >&2; exit 1; }
[ $# -ge 2 ] || die "usage: pip-wheelhouse-install.sh PYTHON [--target DIR] [--no-deps] REQUIREMENT..."
py=$1; shift
install_args=() download_args=() pins=
while [ $# -gt 0 ]; do
  case "$1" in
    --target) install_args+=(--target "$2"); shift 2 ;;
    --pins) pins=$2; shift 2 ;;
    --no-deps) install_args+=(--no-deps); download_args+=(--no-deps); shift ;;
    *) break ;;
  esac
done
[ $# -ge 1 ] || die "no requirements"
for v in PIP_CERT PIP_INDEX_URL PIP_EXTRA_INDEX_URL; do
  [ -n "${!v:-}" ] || unset "$v"
done

tmp= log=
# The temporary wheelhouse and the log go whatever happens (a failed download too).
trap 'rm -f "$log"; [ -z "$tmp" ] || rm -rf "$tmp"' EXIT
wh=${OPMATRIX_WHEELHOUSE:-}
if [ -z "$wh" ]; then
  # mountpoint, not -d: buildah leaves an empty /wheelhouse stub in layers built with the volume.
  if mountpoint -q /wheelhouse 2>/dev/null && [ -w /wheelhouse ]; then wh=/wheelhouse
  elif mountpoint -q /root/.cache/pip 2>/dev/null && [ -w /root/.cache/pip ]; then wh=/root/.cache/pip/wheelhouse
  else tmp=$(mktemp -d); wh=$tmp; fi
fi
mkdir -p "$wh"
log=$(mktemp)
before=$(du -sb "$wh" | cut -f1)
start=$(date +%s)
( cd / && "$py" -m pip download --progress-bar off --disable-pip-version-check --no-cache-dir \
    "${download_args[@]}" -d "$wh" "$@" ) | tee "$log"
secs=$(( $(date +%s) - start ))
new=$(( ($(du -sb "$wh" | cut -f1) - before) / 1048576 ))
files=()
while IFS= read -r f; do
  case $f in ./*) f=/${f#./} ;; esac
  [ -f "$f" ] || die "resolved file not found: $f"
  files+=("$f")
done < <(sed -n -e 's/^ *Saved \(.*\)$/\1/p' -e 's/^ *File was already downloaded \(.*\)$/\1/p' "$log")
[ ${#files[@]} -gt 0 ] || die "pip download resolved no files"
echo "pip-wheelhouse-install: ${#files[@]} files, ${new} MiB downloaded in ${secs} s (wheelhouse ${wh})" >&2
if [ -n "$pins" ]; then
  printf '%s\n' "${files[@]}" >>"$pins"
  exit 0
fi
"$py" -m pip install --progress-bar off --disable-pip-version-check --no-cache-dir --no-index --no-deps \
  "${install_args[@]}" "${files[@]}"
