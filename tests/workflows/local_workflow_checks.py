"""What check_local_workflow.py and check_local_atlas_workflow.py both hold a workflow run under
act to (scripts/run-workflow-locally.sh): its jobs' results, and `opmatrix diff` finding no
difference between the workflow's results and a local run's, either way."""
import json
import subprocess


class Checks:
    """Each check printed as it is made; `finish` exits non-zero if any failed."""

    def __init__(self):
        self.failures = []

    def __call__(self, ok, what):
        print(f"{'ok  ' if ok else 'FAIL'}: {what}")
        if not ok:
            self.failures.append(what)

    def finish(self, name):
        print(f"{name}: " + ("FAIL: " + "; ".join(self.failures) if self.failures else "ok"))
        raise SystemExit(1 if self.failures else 0)


def read_jobs(act):
    """(job id, matrix value) -> result, from the run's jobs.tsv (name, job id, matrix value,
    result, act's own result)."""
    jobs = {}
    for line in (act / "jobs.tsv").read_text().splitlines():
        _name, job_id, matrix_value, result, _act = line.split("\t")
        jobs[(job_id.split("/")[-1], matrix_value)] = result
    print("jobs: " + ", ".join(f"{j}{'[' + c + ']' if c else ''}={r}" for (j, c), r in sorted(jobs.items())))
    return jobs


def expect_jobs(check, jobs, expected, why_no_other=""):
    """Every expected job ended as expected, and no other job ran."""
    for key, want in sorted(expected.items()):
        check(jobs.get(key) == want, f"job {key[0]} {key[1]}: {want} (got {jobs.get(key, 'no result: it did not run')})")
    extra = sorted(set(jobs) - set(expected))
    check(not extra, f"no other job ran{' (' + why_no_other + ')' if why_no_other else ''}: {extra}")


def no_differences(check, opmatrix, ours, theirs, count, what):
    """`opmatrix diff` both ways between two results (folders or report files): no difference,
    `count` cells (or pairs) compared."""
    for base, head in ((ours, theirs), (theirs, ours)):
        r = subprocess.run([opmatrix, "diff", str(base), str(head), "--format", "json"], capture_output=True, text=True)
        d = json.loads(r.stdout) if r.stdout.strip() else {}
        differences = {k: d.get(k) for k in ("cells_added", "cells_removed", "changed", "fixed", "regressed") if d.get(k)}
        check(r.returncode == 0 and d.get("summary") == "no differences" and not differences
              and d.get("cells_compared") == count,
              f"opmatrix diff ({what}) {base} {head}: {d.get('summary', r.stderr.strip())}, {d.get('cells_compared')} "
              f"compared, {d.get('results_compared')} results {differences or ''}")
