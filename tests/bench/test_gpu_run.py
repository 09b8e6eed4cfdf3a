"""bench/gpu's scripts where no GPU is: each must say so and exit 77 (skipped) before building
anything, and name the Python when that one has no torch; cases_summary.py on gtest's JSON. (Its GPU part runs where one is; its
check script also runs on CPU against torchvision in the host cell: tests/CMakeLists.txt.)"""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

GPU = Path(__file__).resolve().parents[2] / "bench" / "gpu"
DEBIAN_PYTHON = "/usr/bin/python3"
# Each script with the arguments after OUT.
SCRIPTS = {"run.sh": [], "cases.sh": [], "ptx_jit.sh": ["/nonexistent-sass-build"], "all.sh": []}


def run(python, out, script="run.sh"):
    env = dict(os.environ, OPMATRIX_PYTHON=python)
    return subprocess.run([str(GPU / script), str(out)] + SCRIPTS[script], stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT if script == "all.sh" else subprocess.PIPE,
                          universal_newlines=True, env=env, timeout=120)


def has_torch(python):
    return subprocess.run([python, "-c", "import torch"], stderr=subprocess.DEVNULL).returncode == 0


@pytest.mark.parametrize("script", sorted(SCRIPTS))
def test_no_gpu_is_a_skip_with_its_reason(tmp_path, script):
    if not (os.access(DEBIAN_PYTHON, os.X_OK) and has_torch(DEBIAN_PYTHON)):
        pytest.skip("%s has no torch (install python3-torch)" % DEBIAN_PYTHON)
    gpu = subprocess.run([DEBIAN_PYTHON, "-c", "import torch; print(torch.cuda.is_available())"],
                         stdout=subprocess.PIPE, universal_newlines=True).stdout.strip()
    if gpu == "True":
        pytest.skip("this machine has a GPU: run.sh would build and run")
    p = run(DEBIAN_PYTHON, tmp_path / "out", script)
    said = p.stdout if script == "all.sh" else p.stderr  # all.sh tees everything into its log
    assert p.returncode == 77, said
    assert "no CUDA device visible to %s's torch" % DEBIAN_PYTHON in said
    assert not [b for b in (tmp_path / "out").rglob("*build*")]


def test_a_python_without_torch_is_named(tmp_path):
    # A Python that cannot see any site-packages (-S): no torch, whatever this machine has.
    bare = tmp_path / "bare-python"
    bare.write_text("#!/bin/sh\nexec %s -S \"$@\"\n" % sys.executable)
    bare.chmod(0o755)
    p = run(str(bare), tmp_path / "out")
    assert p.returncode not in (0, 77)
    assert "cannot import torch (set OPMATRIX_PYTHON" in p.stderr, p.stderr


def gtest_json(folder, name, cases):
    """A file as gtest writes it (GTEST_OUTPUT=json:DIR/), the cases' properties as keys."""
    folder.mkdir(exist_ok=True)
    (folder / (name + ".json")).write_text(json.dumps(
        {"testsuites": [{"name": "Suite", "testsuite": cases}]}))


def test_cases_summary_counts_failures_and_skip_reasons(tmp_path):
    folder = tmp_path / "gtest"
    gtest_json(folder, "nms_device", [
        {"name": "Runs", "status": "RUN", "result": "COMPLETED", "op": "nms", "check": "device"},
        {"name": "Skips", "status": "RUN", "result": "SKIPPED", "op": "nms", "check": "device",
         "skip_reason": "no GPU visible"}])
    gtest_json(folder, "roi_align_device", [
        {"name": "Fails", "status": "RUN", "result": "COMPLETED", "op": "roi_align", "check": "device",
         "failures": [{"failure": "roi_align.cu:12\nExpected equality", "type": ""}]}])
    out = tmp_path / "cases.json"
    p = subprocess.run([sys.executable, str(GPU / "cases_summary.py"), str(folder), "--json", str(out)],
                       stdout=subprocess.PIPE, universal_newlines=True)
    assert p.returncode == 1  # a failure
    summary = json.loads(out.read_text())
    assert (summary["ran"], summary["passed"], summary["failed"], summary["skipped"]) == (3, 1, 1, 1)
    assert summary["skips"][0]["reason"] == "no GPU visible"
    assert summary["failures"][0]["test"] == "Suite.Fails"
    assert summary["by_op_check"]["roi_align device failed"] == 1
    assert "FAILED Suite.Fails: roi_align.cu:12" in p.stdout


def test_cases_summary_with_nothing_run_fails(tmp_path):
    (tmp_path / "gtest").mkdir()
    p = subprocess.run([sys.executable, str(GPU / "cases_summary.py"), str(tmp_path / "gtest")],
                       stdout=subprocess.PIPE, universal_newlines=True)
    assert p.returncode == 1 and "0 ran" in p.stdout
