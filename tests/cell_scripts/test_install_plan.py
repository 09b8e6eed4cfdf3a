"""scripts/cell/install_plan.py: pip's dry-run answer judged against what the cell has installed.
A replacement is an installed torch-family package whose version would change; torch-family
packages that are only added (NVIDIA's CUDA 12 runtime wheels a library needs beside a torch
without them) replace nothing. In-process, no network: the answer pip gave is handed in, or kept."""
import json
import os
import sys

import pytest

from conftest import CELL

sys.path.insert(0, str(CELL))
import install_plan  # noqa: E402

INSTALLED = {"torch": "2.14.1+debian", "torchvision": "0.27.0", "numpy": "2.3.0"}


@pytest.fixture(autouse=True)
def installed(monkeypatch):
    monkeypatch.setattr(install_plan, "installed_versions", lambda: dict(INSTALLED))


def test_added_nvidia_wheels_replace_nothing():
    # cuequivariance-ops-torch-cu12 0.13.0 next to Debian's CPU torch 2.14 (pip's own list).
    install = [{"name": "cuequivariance-ops-torch-cu12", "version": "0.13.0"},
               {"name": "cuequivariance-ops-cu12", "version": "0.13.0"},
               {"name": "nvidia-cublas-cu12", "version": "12.9.3.13"},
               {"name": "nvidia-cuda-nvrtc-cu12", "version": "12.9.86"},
               {"name": "nvidia-ml-py", "version": "13.615.71"}]
    answer = install_plan.judged("cuequivariance-ops-torch-cu12==0.13.0", install)
    assert answer["plan"] == "installs" and answer["torch_family"] == []
    assert answer["install"] == install


def test_a_new_torch_is_a_replacement_with_what_comes_along():
    install = [{"name": "torch-harmonics", "version": "0.9.3"}, {"name": "torch", "version": "2.15.0"},
               {"name": "triton", "version": "3.8.0"}, {"name": "nvidia-cublas", "version": "13.4.1.3"}]
    answer = install_plan.judged("torch-harmonics==0.9.3", install)
    assert answer["plan"] == "replaces_torch"
    assert answer["torch_family"] == [{"name": "torch", "from": "2.14.1+debian", "to": "2.15.0"},
                                      {"name": "triton", "from": None, "to": "3.8.0"},
                                      {"name": "nvidia-cublas", "from": None, "to": "13.4.1.3"}]


def test_a_kept_answer_is_judged_again(tmp_path):
    # Kept by the rule before: the added NVIDIA wheels were a "replacement".
    requirement = "cuequivariance-ops-torch-cu12==0.13.0"
    key = install_plan.cache_key([requirement], install_plan.torch_family_pins())
    (tmp_path / "plans").mkdir()
    install = [{"name": "cuequivariance-ops-torch-cu12", "version": "0.13.0"},
               {"name": "nvidia-cublas-cu12", "version": "12.9.3.13"}]
    (tmp_path / "plans" / (key + ".json")).write_text(json.dumps(
        {"ok": True, "requirement": requirement, "plan": "replaces_torch", "install": install,
         "torch_family": [{"name": "nvidia-cublas-cu12", "from": None, "to": "12.9.3.13"}]}))
    answer = install_plan.plan(requirement, str(tmp_path))
    assert answer["cached"] is True
    assert answer["plan"] == "installs" and answer["torch_family"] == []
    assert os.listdir(tmp_path / "plans") == [key + ".json"]
