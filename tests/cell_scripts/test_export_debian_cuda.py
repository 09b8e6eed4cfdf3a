"""scripts/cell/export-debian-cuda.sh: Debian's nvidia-cuda-toolkit copied into an NVIDIA-style
root. The export itself needs that (non-free) package; argument errors and the refusal
without it are checked everywhere."""
import os
import re
import subprocess

import pytest

from conftest import run_shell

SCRIPT = "export-debian-cuda.sh"
TK = "/usr/lib/nvidia-cuda-toolkit/bin/nvcc"


def test_usage():
    r = run_shell(SCRIPT)
    assert r.returncode == 1
    assert r.stderr.strip() == "export-debian-cuda: usage: export-debian-cuda.sh DEST [EXPECTED_VERSION]"


def test_refuses_without_the_toolkit_and_keeps_dest(tmp_path):
    if os.access(TK, os.X_OK):
        pytest.skip("Debian's nvidia-cuda-toolkit is installed here (%s)" % TK)
    dest = tmp_path / "dest"
    dest.mkdir()
    (dest / "keep").write_text("x")
    r = run_shell(SCRIPT, dest)
    assert r.returncode == 1 and "no %s: install Debian's nvidia-cuda-toolkit (non-free) first" % TK in r.stderr
    assert (dest / "keep").read_text() == "x"  # nothing removed before the checks pass


@pytest.fixture(scope="module")
def debian_toolkit():
    if not os.access(TK, os.X_OK):
        pytest.skip("Debian's nvidia-cuda-toolkit (non-free) is not installed: the export cannot run here")
    out = subprocess.run([TK, "--version"], stdout=subprocess.PIPE, universal_newlines=True).stdout
    return re.search(r"release ([\d.]+),", out).group(1)


def test_wrong_expected_version(debian_toolkit, tmp_path):
    dest = tmp_path / "dest"
    dest.mkdir()
    (dest / "keep").write_text("x")
    r = run_shell(SCRIPT, dest, "0.1")
    assert r.returncode == 1 and "is CUDA %s, not 0.1" % debian_toolkit in r.stderr
    assert (dest / "keep").exists()


def test_export(debian_toolkit, tmp_path):
    dest = tmp_path / "dest"
    r = run_shell(SCRIPT, dest, debian_toolkit, timeout=600)
    assert r.returncode == 0, r.stderr
    for rel in ["bin/nvcc", "bin/nvcc.profile", "nvvm/bin/cicc", "include/cuda_runtime.h"]:
        assert (dest / rel).exists(), rel
    assert (dest / "version.txt").read_text().strip() == "CUDA Version %s" % debian_toolkit
    p = subprocess.run([str(dest / "bin" / "nvcc"), "--version"], stdout=subprocess.PIPE, universal_newlines=True)
    assert "release %s," % debian_toolkit in p.stdout
