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

from local_workflow_checks import Checks, expect_jobs, no_differences, read_jobs

opmatrix, act, local = sys.argv[1], pathlib.Path(sys.argv[2]), pathlib.Path(sys.argv[3])
check = Checks()


cells = {p.stem: json.loads(p.read_text()) for p in sorted(local.glob("*.json")) if not p.name.startswith("_")}
# The fixture's cells, by their ids in its matrix (each one a job of the workflow too).
fixture = pathlib.Path(__file__).resolve().parent / "local" / "matrix.yaml"
declared = sorted(re.findall(r"^  - id: (\S+)$", fixture.read_text(), re.M))
check(len(declared) >= 2 and sorted(cells) == declared,
      f"the local run has the fixture's {len(declared)} cells {declared}: {sorted(cells)}")

# Jobs: (job id, matrix.id) -> result.
jobs = read_jobs(act)
expected = {("wheel", ""): "success", ("plan", ""): "success", ("report", ""): "success", ("pages", ""): "success"}
for cell, result in cells.items():
    expected[("cell", cell)] = "success" if result["meets_expectations"] else "failure"
expect_jobs(check, jobs, expected, "cross-load needs two kernels cells; unit is not dispatched")

# The workflow's report and the local run: no differences, either way.
report = act / "artifacts" / "opmatrix-report"
no_differences(check, opmatrix, local, report / "results.json", len(cells), "the report's results.json")

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

check.finish("local workflow")
