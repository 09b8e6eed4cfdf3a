# Sourced by the fixture runs that use real cell images (tests/verdicts, tests/owntests,
# tests/reach): what each does once its own preconditions hold. From an empty WORK, exit 77 with
# the reason unless the cells' images are built (prebuilt_images.sh); one real `opmatrix run` of
# the cells from scratch (no cache, no cross-load), its stdout shown indented, its exit status held
# to the one the fixture expects (exit 1 with WHY otherwise); the run's report written in FORMAT;
# then the fixture's CHECKER on the results folder and that report, whose status is the fixture's.
#   run_fixture OPMATRIX WORK MATRIX EXPECTED_RC WHY FORMAT CHECKER [opmatrix run options...]
# Results land in WORK/results, the cells' work in WORK/cells, the run's output in WORK/run.*,
# the report in WORK/report.json (json) or WORK/report.xml (junit).
# The cells see this repository as their --repo-root, and podman this repository's own settings.
fixture_repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
export CONTAINERS_CONF=$fixture_repo/containers/podman/containers.conf
source "$fixture_repo/tests/scripts/prebuilt_images.sh"

run_fixture() {
  local opmatrix=$1 work=$2 matrix=$3 expected_rc=$4 why=$5 format=$6 checker=$7 repo=$fixture_repo report rc
  shift 7
  report=$work/report.${format/junit/xml}
  rm -rf "$work"
  require_prebuilt_images "$opmatrix" "$matrix" "$repo" "$work" "$@"
  "$opmatrix" run --matrix "$matrix" --repo-root "$repo" --results "$work/results" --work-dir "$work/cells" \
    "$@" --no-cache --no-cross-load --yes >"$work/run.stdout" 2>"$work/run.stderr"
  rc=$?
  sed 's/^/  | /' "$work/run.stdout"
  [ "$rc" = "$expected_rc" ] ||
    { tail -20 "$work/run.stderr"; echo "FAIL: opmatrix exited $rc, expected $expected_rc ($why)"; exit 1; }
  "$opmatrix" report --results "$work/results" --format "$format" -o "$report" ||
    { echo "FAIL: no $format report"; exit 1; }
  python3 "$checker" "$work/results" "$report"
}
