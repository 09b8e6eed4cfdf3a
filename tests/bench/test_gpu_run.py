"""bench/gpu/run.sh where no GPU is: it must say so and exit 77 (skipped) before building
anything, and name the Python when that one has no torch. (Its GPU part runs where one is; its
check script also runs on CPU against torchvision in the host cell: tests/CMakeLists.txt.)"""
import os
import subprocess
import sys
from pathlib import Path

import pytest

RUN = Path(__file__).resolve().parents[2] / "bench" / "gpu" / "run.sh"
DEBIAN_PYTHON = "/usr/bin/python3"


def run(python, out):
    env = dict(os.environ, OPMATRIX_PYTHON=python)
    return subprocess.run([str(RUN), str(out)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          universal_newlines=True, env=env, timeout=120)


def has_torch(python):
    return subprocess.run([python, "-c", "import torch"], stderr=subprocess.DEVNULL).returncode == 0


def test_no_gpu_is_a_skip_with_its_reason(tmp_path):
    if not (os.access(DEBIAN_PYTHON, os.X_OK) and has_torch(DEBIAN_PYTHON)):
        pytest.skip("%s has no torch (install python3-torch)" % DEBIAN_PYTHON)
    gpu = subprocess.run([DEBIAN_PYTHON, "-c", "import torch; print(torch.cuda.is_available())"],
                         stdout=subprocess.PIPE, universal_newlines=True).stdout.strip()
    if gpu == "True":
        pytest.skip("this machine has a GPU: run.sh would build and run")
    p = run(DEBIAN_PYTHON, tmp_path / "out")
    assert p.returncode == 77, p.stderr
    assert "no CUDA device visible to %s's torch" % DEBIAN_PYTHON in p.stderr
    assert not (tmp_path / "out" / "build").exists()


def test_a_python_without_torch_is_named(tmp_path):
    # A Python that cannot see any site-packages (-S): no torch, whatever this machine has.
    bare = tmp_path / "bare-python"
    bare.write_text("#!/bin/sh\nexec %s -S \"$@\"\n" % sys.executable)
    bare.chmod(0o755)
    p = run(str(bare), tmp_path / "out")
    assert p.returncode not in (0, 77)
    assert "cannot import torch (set OPMATRIX_PYTHON" in p.stderr, p.stderr
