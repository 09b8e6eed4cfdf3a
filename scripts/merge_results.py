#!/usr/bin/env python3
"""Several runs' results as one results folder, for one report of every cell run here.

The local default's run and the runs of the other cells (`opmatrix run --where all --disk-budget
GB`, image by image over hours or sessions) each leave a results folder; the published report
(docs/compatibility/report.json) holds a run's results files too. This writes OUT as a results
folder `opmatrix report` reads: each cell's results file from the source whose run of that cell
started last (started_at), with that cell's logs (logs/<cell>/) beside it, and the load matrix
(_cross-load.json) of the first source that has one (it needs every runtime at once, which only
one run had).
    merge_results.py OUT SOURCE...   (SOURCE: a results folder, or a report JSON file whose logs
                                      folder is beside it)
Prints one line per source: how many of its cells were taken.
"""
import json
import os
import shutil
import sys


def read_source(source):
    """(cells: [results-file dict], logs root, cross-load dict or None) of one source."""
    if os.path.isdir(source):
        cells, cross_load = [], None
        for name in sorted(os.listdir(source)):
            path = os.path.join(source, name)
            if not name.endswith(".json") or not os.path.isfile(path):
                continue
            data = json.load(open(path, encoding="utf-8"))
            if name == "_cross-load.json":
                cross_load = data
            elif not name.startswith("_"):
                cells.append(data)
        return cells, source, cross_load
    report = json.load(open(source, encoding="utf-8"))
    if report.get("schema") != "opmatrix-report":
        sys.exit(f"merge_results: {source}: neither a results folder nor a report JSON file (\"schema\": \"opmatrix-report\")")
    # A report's cells are its results files with their verdict added (the report recomputes it).
    folder = os.path.dirname(os.path.abspath(source))
    embedded = report.get("cells", [])
    # Schema 2 (an atlas): the cells are in the evidence files it names, beside it.
    for name in report.get("cells_files", []):
        embedded += json.load(open(os.path.join(folder, name), encoding="utf-8")).get("cells", [])
    cells = [{k: v for k, v in c.items() if k != "verdict"} for c in embedded]
    return cells, folder, report.get("cross_load") or None


def main():
    if len(sys.argv) < 3:
        sys.exit("usage: merge_results.py OUT SOURCE...")
    out, sources = sys.argv[1], sys.argv[2:]
    chosen = {}  # cell id -> (started_at, results file, logs root, source index)
    cross_load = None
    for index, source in enumerate(sources):
        if not os.path.exists(source):
            sys.exit(f"merge_results: {source}: no such results folder or report file")
        cells, logs_root, source_cross_load = read_source(source)
        if cross_load is None and source_cross_load:
            cross_load = source_cross_load
        for cell in cells:
            cid = cell["cell"]["id"]
            if cid not in chosen or cell.get("started_at", "") > chosen[cid][0]:
                chosen[cid] = (cell.get("started_at", ""), cell, logs_root, index)
    tmp = out + ".tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    for cid, (_, cell, logs_root, _) in chosen.items():
        with open(os.path.join(tmp, cid + ".json"), "w", encoding="utf-8") as f:
            json.dump(cell, f, indent=1)
        logs = os.path.join(logs_root, "logs", cid)
        if os.path.isdir(logs):
            shutil.copytree(logs, os.path.join(tmp, "logs", cid))
    if cross_load is not None:
        with open(os.path.join(tmp, "_cross-load.json"), "w", encoding="utf-8") as f:
            json.dump(cross_load, f, indent=1)
    shutil.rmtree(out, ignore_errors=True)
    os.replace(tmp, out)
    for index, source in enumerate(sources):
        taken = sum(1 for v in chosen.values() if v[3] == index)
        print(f"merge_results: {source}: {taken} cell{'' if taken == 1 else 's'} taken")


if __name__ == "__main__":
    main()
