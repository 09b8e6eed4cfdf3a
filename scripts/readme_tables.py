#!/usr/bin/env python3
"""The README's compact block, from one run's JSON report (`opmatrix report --format json`).

Prints Markdown: our ops as a torch x CUDA table with one symbol and a few words per cell, then
one line per environment a cell exists to diagnose (matrix.yaml's `diagnoses:`, out of the
table), then one line per other op library with each cell's verdict. Every entry links to its cell's section
of the details page (the whole report of the same run), where every reason, log and
reproduction command is.
    readme_tables.py REPORT_JSON DETAILS_PAGE   (DETAILS_PAGE as the README links it)
"""
import json
import sys

SYMBOL = {"pass": "✔", "limits": "◐", "fail": "✘", "notrun": "○"}
WORDS = {"pass": "works", "limits": "limits", "fail": "broken", "notrun": "not run"}


def few_words(text, words=7):
    """The first reason, cut to a few words (the details page has it whole)."""
    text = text.split(";")[0].strip()
    parts = text.split()
    return " ".join(parts[:words]) + ("…" if len(parts) > words else "")


def verdict_words(verdict):
    """'✘ broken: torchvision does not import'; '✘ known broken (declared): …' where every break is
    declared; '◐ limits: no sm_70 support'; '✔ works'."""
    kind = verdict.get("verdict", "")
    reasons = verdict.get("broken", []) if kind == "fail" else verdict.get("limits", []) if kind == "limits" else []
    if kind == "notrun" and verdict.get("not_run"):
        reasons = [verdict["not_run"]]
    words = "known broken (declared)" if kind == "fail" and verdict.get("known_broken") else WORDS.get(kind, kind)
    out = f"{SYMBOL.get(kind, '?')} {words}"
    if reasons:
        out += ": " + few_words(reasons[0])
    if not verdict.get("as_declared", True):
        out += " ‼"
    return out


def on_gpu(result):
    """' · on a GPU (sm_90)' for a cell that ran with a GPU visible (its probe's `gpus`): its CUDA
    kernels executed. Every other CUDA entry was built and checked without one."""
    gpus = result.get("versions", {}).get("gpus") or []
    return " · on a GPU (%s)" % ", ".join("sm_" + g.replace(".", "") for g in gpus) if gpus else ""


def anchor(cell_id):
    return "cell-" + cell_id


def main():
    report_path, details = sys.argv[1], sys.argv[2]
    report = json.load(open(report_path, encoding="utf-8"))
    cells = {c["cell"]["id"]: c for c in report["cells"]}
    table = report["table"]
    columns = table["columns"]
    print("| torch | torchvision | " + " | ".join(c if c == "cpu" else "CUDA " + c for c in columns) + " |")
    print("|---|---|" + "---|" * len(columns))
    for row in table["rows"]:
        entries = []
        for col in columns:
            entry = row["entries"].get(col)
            if not entry:
                entries.append("")
                continue
            entries.append("<br>".join(f"[{verdict_words(cells[i]['verdict'])}{on_gpu(cells[i])}]({details}#{anchor(i)})"
                                       for i in entry["cells"]))
        print(f"| {row['torch']} | {row['torchvision']} | " + " | ".join(entries) + " |")
    print()
    print("✔ works · ◐ works with limits (the first one named) · ✘ broken (the first reason) · ○ not run here · "
          "‼ not as declared in matrix.yaml. Each entry links to its cell's whole verdict. A CUDA entry "
          "ran its kernels only where it says \"on a GPU\"; the others were built and checked with no GPU.")
    environments = [(cid, c) for cid, c in cells.items() if c["cell"].get("diagnoses")]
    if environments:
        print()
        print("Environments opmatrix diagnoses (cells that exist to show a broken environment, not our ops):")
        print()
        for cid, c in environments:
            cell = c["cell"]
            runtime = f"torch {cell.get('torch', '?')} + torchvision {cell.get('torchvision', '?')}" + (
                "" if cell.get("cuda") in (None, "none") else f", CUDA {cell['cuda']}")
            print(f"- **{runtime}**: {cell['diagnoses']}: [{verdict_words(c['verdict'])}]({details}#{anchor(cid)})")
    libraries = {}
    for cid, c in cells.items():
        project = c["cell"].get("project")
        if project:
            libraries.setdefault(project.get("label", cid), []).append(cid)
    if libraries:
        print()
        print("Other op libraries, one line each (a cell per runtime):")
        print()
        for label in sorted(libraries):
            parts = []
            for cid in sorted(libraries[label]):
                cell = cells[cid]["cell"]
                runtime = f"torch {cell.get('torch', '?')}" + ("" if cell.get("cuda") in (None, "none") else f" CUDA {cell['cuda']}")
                parts.append(f"[{verdict_words(cells[cid]['verdict'])}]({details}#{anchor(cid)}) ({runtime})")
            print(f"- **{label}**: " + "; ".join(parts))


if __name__ == "__main__":
    main()
