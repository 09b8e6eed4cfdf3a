"""scripts/cell/nvrtc_probe.py: does the cell's NVRTC accept each GPU arch. Checked against the
same toolkit's nvcc (`nvcc --list-gpu-code`), so the expectation follows the toolkit installed."""
import importlib
import importlib.util
import os
import re
import subprocess
import sys

import pytest

from conftest import CELL, nvcc_or_skip, run_json, toolkit_root

sys.path.insert(0, str(CELL))
nvrtc_probe = importlib.import_module("nvrtc_probe")

ARCHS = ["7.0", "7.5", "8.0", "8.6", "9.0", "10.0", "12.0"]


@pytest.fixture(scope="module")
def toolkit():
    nvcc = nvcc_or_skip("no nvcc: no toolkit to compare NVRTC with")
    root = toolkit_root(nvcc)
    if not any(os.path.basename(f).startswith("libnvrtc.so") for f in nvrtc_probe.candidates(root)):
        pytest.skip("no libnvrtc.so* in %s/lib64" % root)
    codes = subprocess.run([nvcc, "--list-gpu-code"], stdout=subprocess.PIPE, universal_newlines=True).stdout.split()
    release = re.search(r"release (\d+\.\d+)", subprocess.run([nvcc, "--version"], stdout=subprocess.PIPE,
                                                               universal_newlines=True).stdout)
    return root, set(codes), release.group(1) if release else None


@pytest.fixture(scope="module")
def probed(toolkit):
    root = toolkit[0]
    out, _ = run_json("nvrtc_probe.py", "--cuda-root", root, *(ARCHS + ["9.0a", "abc"]))
    return out


def test_shape_and_library(probed):
    assert set(probed) == {"library", "version", "archs", "error", "torch_imported"}
    assert probed["error"] is None
    name = os.path.basename(probed["library"])
    assert name.startswith("libnvrtc") and "builtins" not in name and "alt" not in name
    assert list(probed["archs"]) == ARCHS + ["9.0a", "abc"]


def test_version_is_the_toolkits(probed, toolkit):
    root, _, release = toolkit
    assert re.fullmatch(r"\d+\.\d+", probed["version"])
    if probed["library"].startswith(root + os.sep):
        assert probed["version"] == release


@pytest.mark.parametrize("arch", ARCHS)
def test_arch_accepted_as_nvcc_lists_it(probed, toolkit, arch):
    _, codes, _ = toolkit
    sm = "sm_" + arch.replace(".", "")
    r = probed["archs"][arch]
    assert r["accepted"] is (sm in codes), r
    if r["accepted"]:
        assert r["log"] == "--gpu-architecture=%s accepted" % sm
    else:  # what users see
        assert "invalid value for --gpu-architecture" in r["log"]


def test_arch_specific_variant(probed, toolkit):
    # sm_90a exists wherever sm_90 does (CUDA 12.0+); nvcc --list-gpu-code does not list it.
    assert probed["archs"]["9.0a"]["accepted"] is ("sm_90" in toolkit[1])


def test_nonsense_arch_rejected(probed):
    assert probed["archs"]["abc"]["accepted"] is False
    assert "NVRTC_ERROR_INVALID_OPTION" in probed["archs"]["abc"]["log"]


def test_no_archs(toolkit):
    out, _ = run_json("nvrtc_probe.py", "--cuda-root", toolkit[0])
    assert out["archs"] == {} and out["library"] and out["error"] is None


def test_no_nvrtc_is_reported(monkeypatch, tmp_path, capsys):
    # No candidate at all, then a candidate that is not a library: JSON with the reason.
    monkeypatch.setattr(nvrtc_probe, "candidates", lambda root: [])
    monkeypatch.setattr(sys, "argv", ["nvrtc_probe.py", "8.0"])
    out = nvrtc_probe.main()
    torch_imported = out.pop("torch_imported")
    assert out == {"library": None, "version": None, "archs": {}, "error": "no NVRTC library in this cell"}
    assert torch_imported == (importlib.util.find_spec("torch") is not None)
    fake = tmp_path / "libnvrtc.so.99"
    fake.write_text("not a library")
    monkeypatch.setattr(nvrtc_probe, "candidates", lambda root: [str(fake)])
    out = nvrtc_probe.main()
    assert out["library"] is None
    assert out["error"].startswith("no NVRTC library in this cell; %s: " % fake)


def test_candidates_skip_helper_libraries(tmp_path):
    lib64 = tmp_path / "lib64"
    lib64.mkdir()
    for n in ["libnvrtc.so.13", "libnvrtc-builtins.so.13.0", "libnvrtc.alt.so.13", "libnvrtc-builtins.alt.so"]:
        (lib64 / n).write_text("")
    found = [f for f in nvrtc_probe.candidates(str(tmp_path)) if f.startswith(str(tmp_path))]
    assert found == [str(lib64 / "libnvrtc.so.13")]
