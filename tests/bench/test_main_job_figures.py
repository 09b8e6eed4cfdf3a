"""bench/main_job/figures.py: the main job's figures, from a results folder, console log and
disk log written here in the shapes `opmatrix run` and measure.sh write them."""
import json
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "bench" / "main_job" / "figures.py"


def result(results, cid, status, ok, seconds, steps):
    (results / (cid + ".json")).write_text(json.dumps({
        "cell": {"id": cid}, "status": status, "meets_expectations": ok, "seconds": seconds,
        "steps": [{"name": n, "seconds": s} for n, s in steps]}))


def test_figures_of_a_run(tmp_path):
    results = tmp_path / "results"
    (results / "logs" / "a").mkdir(parents=True)
    (results / "logs" / "b").mkdir(parents=True)
    result(results, "a", "pass", True, 300.0, [("image", 100.0), ("build", 150.0)])
    result(results, "b", "xpass", False, 40.0, [("fetch", 2.0), ("build", 1.0)])
    (results / "_cross-load.json").write_text("{}")  # not a cell
    (results / "logs" / "a" / "image.log").write_text(
        "Fetched 15.3 MB in 1s (11.0 MB/s)\nFetched 2262 kB in 0s (84 MB/s)\n"
        "  Downloading torch-2.15.0-cp311-none-manylinux_2_28_x86_64.whl (1.5 GB)\n"
        "  Downloading nvidia_nvvm-13.2.86-py3-none-manylinux2010_x86_64.whl (64.3 MB)\n")
    (results / "logs" / "b" / "image.log").write_text("Fetched 1 GB in 10s (100 MB/s)\n")
    console = tmp_path / "console.log"
    console.write_text("2 cells run, 0 skipped, 1 not as expected; results in /r (612.4 s)\n"
                       "cold images: 2 built in 300 s (200 s of it beside a compiling cell); cells 340 s; wall 600 s; sum/wall 1.07\n")
    disk = tmp_path / "disk.log"
    disk.write_text("100 17000000000\n120 40000000000\n140 30000000000\n")
    r = subprocess.run([sys.executable, str(SCRIPT), str(results), str(console), str(disk), "700"],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert "| wall time of `scripts/run-matrix.sh` (set-up, harness build, run, report) | 700 s (11.7 min) |" in lines
    assert "| of it `opmatrix run` (images, cells, cross-load) | 612 s |" in lines
    assert ("| the run's closing line | cold images: 2 built in 300 s (200 s of it beside a compiling cell); "
            "cells 340 s; wall 600 s; sum/wall 1.07 |") in lines
    assert "| compile time (every cell's `build` step) | 151 s |" in lines
    assert "| downloads: apt (its own timing) | 1.02 GB in 11 s |" in lines
    assert "| downloads: pip into the images (pip prints no time; inside the image builds) | 1.56 GB |" in lines
    assert "| downloads: PyPI sdists and wheels of projects (`fetch` steps) | 2 s |" in lines
    assert ("| disk the run added at its peak (podman storage + work dir + caches, one filesystem) | 23.0 GB "
            "(at the end: 13.0 GB) |") in lines
    assert "| cells as declared | 1 of 2 |" in lines
    assert lines[-2:] == ["| a | pass | yes | 300 | 150 |", "| b | xpass | no | 40 | 1 |"]
