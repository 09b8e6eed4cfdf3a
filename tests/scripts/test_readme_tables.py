"""scripts/readme_tables.py: the README's compact block, from a JSON report written here in the
shape `opmatrix report --format json` gives (its table, its cells with their verdicts)."""
import json
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "readme_tables.py"


def cell(cid, torch, cuda, verdict, project=None):
    c = {"cell": {"id": cid, "torch": torch, "cuda": cuda}, "verdict": verdict}
    if project:
        c["cell"]["project"] = {"label": project}
    return c


def render(tmp_path, report):
    path = tmp_path / "report.json"
    path.write_text(json.dumps(report))
    r = subprocess.run([sys.executable, str(SCRIPT), str(path), "docs/compatibility/report.md"],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
    assert r.returncode == 0, r.stderr
    return r.stdout.splitlines()


def test_our_ops_a_row_per_torch_a_column_per_cuda_a_few_words_each(tmp_path):
    report = {
        "cells": [
            cell("new", "2.15.0", "13.2", {"verdict": "limits", "limits": ["no sm_70 support", "CUDA kernels not executed"],
                                          "broken": [], "as_declared": True}),
            cell("tv", "2.6.0", "12.4", {"verdict": "fail", "limits": [], "as_declared": True,
                                         "broken": ["torchvision::nms has no CUDA kernel although torch has CUDA 12.4; more"]}),
            cell("old", "2.6.0", "none", {"verdict": "pass", "limits": [], "broken": [], "as_declared": False}),
        ],
        "table": {"columns": ["cpu", "12.4", "13.2"], "rows": [
            {"torch": "2.15.0", "torchvision": "0.29.2", "entries": {"13.2": {"cells": ["new"]}}},
            {"torch": "2.6.0", "torchvision": "0.21.0", "entries": {"cpu": {"cells": ["old"]}, "12.4": {"cells": ["tv"]}}},
        ]},
    }
    lines = render(tmp_path, report)
    assert lines[0] == "| torch | torchvision | cpu | CUDA 12.4 | CUDA 13.2 |"
    assert lines[2] == ("| 2.15.0 | 0.29.2 |  |  | [◐ limits: no sm_70 support]"
                        "(docs/compatibility/report.md#cell-new) |")
    assert lines[3] == ("| 2.6.0 | 0.21.0 | [✔ works ‼](docs/compatibility/report.md#cell-old) | "
                        "[✘ broken: torchvision::nms has no CUDA kernel although torch…]"
                        "(docs/compatibility/report.md#cell-tv) |  |")
    assert not any(line.startswith("- **") for line in lines), "no other library, no list"


def test_a_cell_that_ran_on_a_gpu_says_so_beside_one_that_did_not(tmp_path):
    limits = {"verdict": "limits", "limits": ["no sm_70 support"], "broken": [], "as_declared": True}
    on_gpu = dict(cell("gpu-host", "2.11.0", "13.0", limits), versions={"gpus": ["9.0"]})
    report = {"cells": [cell("pypi", "2.11.0", "13.0", limits), on_gpu],
              "table": {"columns": ["13.0"], "rows": [
                  {"torch": "2.11.0", "torchvision": "0.26.0", "entries": {"13.0": {"cells": ["pypi", "gpu-host"]}}}]}}
    lines = render(tmp_path, report)
    assert lines[2] == ("| 2.11.0 | 0.26.0 | [◐ limits: no sm_70 support](docs/compatibility/report.md#cell-pypi)<br>"
                        "[◐ limits: no sm_70 support · on a GPU (sm_90)](docs/compatibility/report.md#cell-gpu-host) |")
    assert any("ran its kernels only where it says \"on a GPU\"" in line for line in lines)


def test_one_line_per_other_library_with_each_cell(tmp_path):
    report = {
        "cells": [
            cell("b-cpu", "2.6.0", "none", {"verdict": "pass", "limits": [], "broken": [], "as_declared": True}, "examples/boxops"),
            cell("a-cu", "2.15.0", "13.2", {"verdict": "fail", "limits": [], "as_declared": True,
                                            "broken": ["x.so: undefined symbol: c10::Foo"]}, "wheel a==1"),
            cell("b-cu", "2.5.1", "12.4", {"verdict": "notrun", "not_run": "needs a GPU", "limits": [], "broken": [],
                                           "as_declared": True}, "examples/boxops"),
        ],
        "table": {"columns": [], "rows": []},
    }
    lines = [line for line in render(tmp_path, report) if line.startswith("- **")]
    assert lines == [
        "- **examples/boxops**: [✔ works](docs/compatibility/report.md#cell-b-cpu) (torch 2.6.0); "
        "[○ not run: needs a GPU](docs/compatibility/report.md#cell-b-cu) (torch 2.5.1 CUDA 12.4)",
        "- **wheel a==1**: [✘ broken: x.so: undefined symbol: c10::Foo](docs/compatibility/report.md#cell-a-cu) "
        "(torch 2.15.0 CUDA 13.2)",
    ]


def test_a_cell_whose_every_break_is_declared_reads_known_broken():
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))
    try:
        from readme_tables import verdict_words
    finally:
        sys.path.pop(0)
    declared = {"verdict": "fail", "broken": ["built for torch 2.5: undefined symbols"], "known_broken": True,
                "as_declared": True}
    assert verdict_words(declared) == "✘ known broken (declared): built for torch 2.5: undefined symbols"
    assert verdict_words(dict(declared, known_broken=False)) == "✘ broken: built for torch 2.5: undefined symbols"
