"""scripts/merge_results.py: several runs' results (folders, a published report JSON file) as one
results folder, each cell from its latest run with its logs."""
import json
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "merge_results.py"


def results_file(cid, started_at, status):
    return {"schema": "opmatrix-results", "cell": {"id": cid}, "started_at": started_at, "status": status}


def write_folder(folder, cells, logs=(), cross_load=None):
    folder.mkdir(parents=True)
    for c in cells:
        (folder / (c["cell"]["id"] + ".json")).write_text(json.dumps(c))
    for cid, text in logs:
        (folder / "logs" / cid).mkdir(parents=True)
        (folder / "logs" / cid / "build.log").write_text(text)
    if cross_load is not None:
        (folder / "_cross-load.json").write_text(json.dumps(cross_load))


def merge(out, *sources):
    return subprocess.run([sys.executable, str(SCRIPT), str(out), *map(str, sources)],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)


def test_each_cell_from_its_latest_run_with_that_runs_logs(tmp_path):
    write_folder(tmp_path / "default", [results_file("a", "2026-11-26T10:00:00Z", "failed"),
                                        results_file("b", "2026-11-26T10:00:00Z", "passed")],
                 logs=[("a", "old log")], cross_load={"kind": "opmatrix-cross-load", "from": "default"})
    write_folder(tmp_path / "every", [results_file("a", "2026-11-27T09:00:00Z", "passed"),
                                      results_file("c", "2026-11-27T09:00:00Z", "passed")],
                 logs=[("a", "new log")], cross_load={"kind": "opmatrix-cross-load", "from": "every"})
    r = merge(tmp_path / "out", tmp_path / "default", tmp_path / "every")
    assert r.returncode == 0, r.stderr
    out = tmp_path / "out"
    assert sorted(p.name for p in out.glob("[!_]*.json")) == ["a.json", "b.json", "c.json"]
    assert json.loads((out / "a.json").read_text())["status"] == "passed"
    assert (out / "logs" / "a" / "build.log").read_text() == "new log"
    assert json.loads((out / "_cross-load.json").read_text())["from"] == "default", "the first source's load matrix"
    assert "default: 1 cell taken" in r.stdout and "every: 2 cells taken" in r.stdout, r.stdout


def test_a_published_report_is_a_source_without_its_verdicts(tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    cell = dict(results_file("a", "2026-11-27T09:00:00Z", "passed"), verdict={"verdict": "pass"})
    (docs / "report.json").write_text(json.dumps({"schema": "opmatrix-report", "cells": [cell]}))
    (docs / "logs" / "a").mkdir(parents=True)
    (docs / "logs" / "a" / "tests.log").write_text("published log")
    r = merge(tmp_path / "out", docs / "report.json")
    assert r.returncode == 0, r.stderr
    merged = json.loads((tmp_path / "out" / "a.json").read_text())
    assert "verdict" not in merged and merged["status"] == "passed"
    assert (tmp_path / "out" / "logs" / "a" / "tests.log").read_text() == "published log"


def test_a_published_atlas_is_read_through_the_evidence_files_it_names(tmp_path):
    atlas = tmp_path / "atlas"
    (atlas / "evidence").mkdir(parents=True)
    for lib in ("libx", "liby"):
        cell = dict(results_file(lib + "-1.0--rt", "2026-11-27T09:00:00Z", "passed"), verdict={"verdict": "pass"})
        (atlas / "evidence" / (lib + ".json")).write_text(
            json.dumps({"schema": "opmatrix-report", "schema_version": 1, "cells": [cell]}))
    (atlas / "atlas.json").write_text(json.dumps({"schema": "opmatrix-report", "schema_version": 2, "kind": "atlas",
                                                  "cells_files": ["evidence/libx.json", "evidence/liby.json"]}))
    r = merge(tmp_path / "out", atlas / "atlas.json")
    assert r.returncode == 0, r.stderr
    assert sorted(f.name for f in (tmp_path / "out").glob("*.json")) == ["libx-1.0--rt.json", "liby-1.0--rt.json"]


def test_a_missing_source_is_an_error_naming_it_and_nothing_is_written(tmp_path):
    r = merge(tmp_path / "out", tmp_path / "nowhere")
    assert r.returncode != 0
    assert "nowhere: no such results folder or report file" in r.stderr
    assert not (tmp_path / "out").exists()
