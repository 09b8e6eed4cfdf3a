"""Checks a run of the GitHub workflow under act (tests/workflows/run_local_workflow.sh) against a
local `opmatrix run` of the same cells:
  - every job ran: wheel, plan, one cell job per cell, report, pages (no cross-load job: fewer than
    two cells of opmatrix's kernels), each passing or failing as its cell met its expectations;
  - `opmatrix diff` finds no difference between the report the workflow rendered (results.json of
    the opmatrix-report artifact) and the local results, either way;
  - junit.xml has one testcase per check result of each cell, and its verdict;
  - the step summary holds the verdict table (the local report's table rows);
  - the site the pages job published is the report's.
    check_local_workflow.py OPMATRIX ACT_DIR LOCAL_RESULTS"""
import json
import pathlib
import re
import subprocess
import sys

opmatrix, act, local = sys.argv[1], pathlib.Path(sys.argv[2]), pathlib.Path(sys.argv[3])
failures = []


def check(ok, what):
    print(f"{'ok  ' if ok else 'FAIL'}: {what}")
    if not ok:
        failures.append(what)


cells = {p.stem: json.loads(p.read_text()) for p in sorted(local.glob("*.json")) if not p.name.startswith("_")}
check(len(cells) == 2, f"the local run has 2 cells: {sorted(cells)}")

# Jobs: (act's name, job id, matrix.id) -> result.
jobs = {}
for line in (act / "jobs.tsv").read_text().splitlines():
    name, job_id, cell, result, _act = line.split("\t")
    jobs[(job_id.split("/")[-1], cell)] = result
print("jobs: " + ", ".join(f"{j}{'[' + c + ']' if c else ''}={r}" for (j, c), r in sorted(jobs.items())))
expected = {("wheel", ""): "success", ("plan", ""): "success", ("report", ""): "success", ("pages", ""): "success"}
for cell, result in cells.items():
    expected[("cell", cell)] = "success" if result["meets_expectations"] else "failure"
for key, want in sorted(expected.items()):
    check(jobs.get(key) == want, f"job {key[0]} {key[1]}: {want} (got {jobs.get(key, 'no result: it did not run')})")
extra = sorted(set(jobs) - set(expected))
check(not extra, f"no other job ran (cross-load needs two kernels cells; unit is not dispatched): {extra}")

# The workflow's report and the local run: no differences, either way.
report = act / "artifacts" / "opmatrix-report"
for base, head in ((local, report / "results.json"), (report / "results.json", local)):
    r = subprocess.run([opmatrix, "diff", str(base), str(head), "--format", "json"], capture_output=True, text=True)
    d = json.loads(r.stdout) if r.stdout.strip() else {}
    differences = {k: d.get(k) for k in ("cells_added", "cells_removed", "changed", "fixed", "regressed") if d.get(k)}
    check(r.returncode == 0 and d.get("summary") == "no differences" and not differences
          and d.get("cells_compared") == len(cells),
          f"opmatrix diff {base} {head}: {d.get('summary', r.stderr.strip())}, {d.get('cells_compared')} cells, "
          f"{d.get('results_compared')} results {differences or ''}")

# JUnit: per cell, one testcase per check result (its name), and the cell's verdict.
junit = (report / "junit.xml").read_text()
for cell, result in cells.items():
    names = re.findall(rf'<testcase classname="{re.escape(cell)}" name="([^"]*)"', junit)
    want = len(result["checks"]) + 1
    check(len(names) == want and names.count("verdict") == 1,
          f"junit.xml: {cell}: {len(names)} testcases, {len(result['checks'])} check results + its verdict")
failed = len(re.findall(r"<failure", junit))
check(failed == sum(c["status"] == "fail" for r in cells.values() for c in r["checks"]) + sum(
    not r["meets_expectations"] for r in cells.values()), f"junit.xml: {failed} failures, one per failed check and red verdict")

# The step summary: the verdict table the local report renders, row by row.
summary = (act / "summary.md").read_text()
local_md = subprocess.run([opmatrix, "report", "--results", str(local), "--format", "md"],
                          capture_output=True, text=True, check=True).stdout
rows = [line for line in local_md.splitlines() if line.startswith("| ") and "#cell-" in line]
check(len(rows) >= len(cells), f"the local report's verdict table has a row per cell ({len(rows)} rows)")
missing = [row for row in rows if row not in summary]
check(not missing, f"the step summary holds the verdict table ({len(rows) - len(missing)} of {len(rows)} rows) {missing[:1]}")

# Pages: the report's site, published.
site = act / "pages"
check(all((site / f).is_file() and (site / f).read_bytes() == (report / f).read_bytes()
          for f in ("index.html", "junit.xml", "results.json")), f"the pages job published the report to {site}")

print("local workflow: " + ("FAIL: " + "; ".join(failures) if failures else "ok"))
sys.exit(1 if failures else 0)
