"""Checks a run of the atlas's GitHub workflow under act (tests/workflows/run_local_atlas_workflow.sh)
against a local `opmatrix atlas run` + `atlas report` of the same pairs:
  - every job ran and passed: wheel, plan, one runtime job per runtime of the atlas, report, pages;
  - each runtime job's artifact holds that runtime's pairs, and only those;
  - `opmatrix diff` finds no difference, either way, between the local results and the workflow's
    (its runtimes' artifacts merged, and the atlas.json its report job rendered);
  - each pair's verdict in the workflow's atlas.json is the local one's, and the index
    (index.md) is the same page;
  - the step summary holds the index; the pages job published the atlas.
    check_local_atlas_workflow.py OPMATRIX ATLAS ACT_DIR LOCAL_DIR"""
import json
import pathlib
import shutil
import subprocess
import sys

from local_workflow_checks import Checks, expect_jobs, no_differences, read_jobs

opmatrix, atlas, act, local = sys.argv[1], sys.argv[2], pathlib.Path(sys.argv[3]), pathlib.Path(sys.argv[4])
check = Checks()


runtimes = [e["runtime"] for e in json.loads(subprocess.run(
    [opmatrix, "atlas", "runtimes", "--atlas", atlas], capture_output=True, text=True, check=True).stdout)["include"]]
local_results = local / "atlas-results"
pairs = {p.stem: json.loads(p.read_text()) for p in sorted(local_results.glob("*.json")) if not p.name.startswith("_")}
check(len(pairs) == 4 and len(runtimes) == 2, f"the local run has 4 pairs of 2 runtimes: {sorted(pairs)}")

# Jobs: (job id, matrix.runtime) -> result.
jobs = read_jobs(act)
expected = {(j, ""): "success" for j in ("wheel", "plan", "report", "pages")}
expected.update({("runtime", r): "success" for r in runtimes})
expect_jobs(check, jobs, expected)

# Each runtime's artifact: its pairs only. Merged, they are the workflow's results folder.
artifacts = act / "artifacts"
merged = act / "merged-atlas-results"
shutil.rmtree(merged, ignore_errors=True)
merged.mkdir()
for r in runtimes:
    folder = artifacts / f"opmatrix-atlas-results-{r}"
    got = sorted(p.stem for p in folder.glob("*.json"))
    want = sorted(p for p in pairs if p.endswith(f"--{r}"))
    check(got == want, f"artifact opmatrix-atlas-results-{r}: {got}")
    for p in folder.glob("*.json"):
        shutil.copy(p, merged / p.name)

site = artifacts / "opmatrix-atlas" / "atlas"
for name, theirs in (("the runtimes' results", merged), ("the report's atlas.json", site / "atlas.json")):
    no_differences(check, opmatrix, local_results, theirs, len(pairs), name)

# Each pair's verdict, and the index page.
workflow_atlas = json.loads((site / "atlas.json").read_text())
local_atlas = json.loads((local / "atlas" / "atlas.json").read_text())


def verdicts(report):
    """The atlas's verdict of each pair (works / with limits / broken / no wheel), with what pip does."""
    return {p["id"]: ((p.get("measured") or {}).get("verdict"), p.get("no_wheel"), p.get("pip"), p.get("disagreement"))
            for p in report.get("pairs", [])}


theirs, ours = verdicts(workflow_atlas), verdicts(local_atlas)
print("verdicts: " + ", ".join(f"{p}={'no wheel' if v[1] else v[0]}" for p, v in sorted(ours.items())))
check(len(ours) == len(pairs) and theirs == ours, f"each pair's verdict is the local one's ({len(ours)} pairs)")
index = (site / "index.md").read_text()
check(index == (local / "atlas" / "index.md").read_text(), "index.md is the local report's")

# The step summary holds the index; the pages job published the atlas.
summary = (act / "summary.md").read_text()
rows = [line for line in index.splitlines() if line.startswith("|")]
check(rows and all(row in summary for row in rows), f"the step summary holds the index's table ({len(rows)} rows)")
pages = act / "pages" / "atlas"
published = ["index.md", "atlas.json"] + workflow_atlas.get("cells_files", [])
check(all((pages / f).is_file() and (pages / f).read_bytes() == (site / f).read_bytes()
          for f in published), f"the pages job published the atlas and its evidence files to {pages}")

check.finish("local atlas workflow")
