"""scripts/cell/torchvision_registrations.py: torchvision as a Python user of the cell gets it,
with the kernel table ("ops") and which registration serves each key ("served_by")."""
import importlib
import json
import subprocess
import sys

import pytest

from conftest import CELL, CELL_PYTHON, cell_env, run_json

sys.path.insert(0, str(CELL))
dispatcher = importlib.import_module("dispatcher")

OPS = ["nms", "roi_align", "deform_conv2d", "roi_pool", "ps_roi_align", "ps_roi_pool"]
KEYS = ["CPU", "CUDA", "Meta", "Autograd"]
ALL = ["CPU", "CUDA", "Meta", "Autograd", "AutogradCPU", "AutogradCUDA",
       "CompositeExplicitAutograd", "BackendSelect", "CompositeImplicitAutograd"]
TOP = {"view", "import_ok", "error", "torch_cuda", "torchvision", "torchvision_cuda", "ops", "served_by"}


@pytest.fixture(scope="module")
def raw(torch_info):
    """torchvision's registrations straight from torch, key by key, in a separate process."""
    code = ("import json, torch, torchvision\n"
            "h = torch._C._dispatch_has_kernel_for_dispatch_key\n"
            "print(json.dumps({'version': str(torchvision.__version__),\n"
            "  'cuda_int': int(torch.ops.torchvision._cuda_version()),\n"
            "  'raw': {op: {k: bool(h('torchvision::' + op, k)) for k in %r} for op in %r}}))\n" % (ALL, OPS))
    p = subprocess.run([CELL_PYTHON, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True, env=cell_env(), timeout=300)
    if p.returncode != 0:
        pytest.skip("%s cannot import torchvision (install python3-torchvision): %s" % (CELL_PYTHON, p.stderr[-300:]))
    return json.loads(p.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def report(raw):
    out, _ = run_json("torchvision_registrations.py")
    return out


def test_import_view(report, raw, torch_info):
    assert set(report) == TOP
    assert report["view"] == "python import" and report["import_ok"] is True and report["error"] is None
    assert report["torchvision"] == raw["version"] and report["torch_cuda"] == torch_info["cuda"]
    v = raw["cuda_int"]
    assert report["torchvision_cuda"] == (None if v < 0 else "%d.%d" % (v // 1000, (v % 1000) // 10))


def test_tables_have_every_op_and_key(report):
    for table in ("ops", "served_by"):
        assert list(report[table]) == OPS
        for op in OPS:
            assert list(report[table][op]) == KEYS


def test_served_by_is_the_first_registered_candidate(report, raw):
    # Against torch's own answers: the named key has a kernel, no earlier candidate has one;
    # None only when no candidate has one.
    for op in OPS:
        for key in KEYS:
            order = dispatcher.candidates(key)
            registered = [k for k in order if raw["raw"][op][k]]
            assert report["served_by"][op][key] == (registered[0] if registered else None), (op, key)
            assert report["ops"][op][key] is bool(registered), (op, key)


def test_nms_cpu_kernel(report):
    # Every torchvision build with its extension has a CPU kernel for nms, registered for CPU.
    assert report["ops"]["nms"]["CPU"] is True and report["served_by"]["nms"]["CPU"] == "CPU"


def test_import_failure_is_data(tmp_path):
    # A torchvision that prints to stdout and fails to import: still one JSON object on stdout.
    pkg = tmp_path / "torchvision"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("import os\nos.write(1, b'tv-noise\\n')\nraise ImportError('broken on purpose')\n")
    out, r = run_json("torchvision_registrations.py", env=cell_env(PYTHONPATH=str(tmp_path)))
    if out["error"] and out["error"].startswith("import torch:"):
        pytest.skip("no torch in %s" % CELL_PYTHON)
    assert out["import_ok"] is False
    assert out["error"] == "import torchvision: ImportError: broken on purpose"
    assert "tv-noise" in r.stderr
    # The extension never loaded, so no torchvision op exists.
    assert out["ops"] == {op: {k: None for k in KEYS} for op in OPS}
    assert out["served_by"] == {op: {k: None for k in KEYS} for op in OPS}


def test_without_torch():
    out, _ = run_json("torchvision_registrations.py", python_args=["-S"], env=cell_env(PYTHONPATH=None))
    assert out["import_ok"] is False and out["error"].startswith("import torch: ModuleNotFoundError")
    assert out["ops"] == {} and out["served_by"] == {}
