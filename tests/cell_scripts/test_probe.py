"""scripts/cell/probe.py: the cell's toolchain as one JSON object; never crashes, anything that
fails is null plus a line in "errors"."""
import importlib
import os
import re
import subprocess
import sys

import pytest

from conftest import CELL, CELL_PYTHON, cell_env, cell_python_json, nvcc_or_skip, run_json

sys.path.insert(0, str(CELL))
probe = importlib.import_module("probe")

KEYS = {"torch", "torch_cuda", "cxx11_abi", "torchvision", "torchvision_cuda", "torchvision_ext", "nvcc", "cxx",
        "cmake", "torch_cmake_prefix", "python", "errors", "python_executable", "torch_path", "cudnn", "cuda_root",
        "torchvision_from", "gpus"}
PATH = "/usr/bin:/bin"  # no nvcc: the probe must not find one unless told


@pytest.fixture(scope="module")
def tv_info(torch_info):
    code = ("import json, torchvision, torch\n"
            "from importlib import metadata\n"
            "try: md = metadata.version('torchvision')\n"
            "except Exception: md = None\n"
            "print(json.dumps({'version': str(torchvision.__version__), 'metadata': md,\n"
            "  'ext_dir': torchvision.__path__[0], 'cuda_int': int(torch.ops.torchvision._cuda_version())}))\n")
    return cell_python_json(code, "cannot import torchvision (install python3-torchvision)")


def cell_python_version():
    return subprocess.run([CELL_PYTHON, "-c", "import sys; print('%d.%d.%d' % sys.version_info[:3])"],
                          stdout=subprocess.PIPE, universal_newlines=True).stdout.strip()


@pytest.mark.parametrize("value, text", [(12040, "12.4"), (11080, "11.8"), (13000, "13.0"), (12090, "12.9"),
                                         ("12060", "12.6"), (-1, None), (0, None), (None, None), ("x", None)])
def test_decode_cuda_int(value, text):
    assert probe.decode_cuda_int(value) == text


def test_full_cell(torch_info, tv_info):
    out, _ = run_json("probe.py", env=cell_env(PATH=PATH, OPMATRIX_CUDA_ROOT=None, CXX=None))
    assert set(out) == KEYS
    assert out["gpus"] == [] or all(isinstance(g, str) and "." in g for g in out["gpus"])  # "9.0"
    assert out["errors"] == []
    assert out["torch"] == torch_info["version"] and out["torch_cuda"] == torch_info["cuda"]
    assert out["cxx11_abi"] is torch_info["abi"]
    assert out["torch_path"] == os.path.dirname(os.path.abspath(torch_info["path"]))
    assert out["torchvision"] == tv_info["version"] and out["torchvision_from"] == "import"
    assert out["torchvision_cuda"] == probe.decode_cuda_int(tv_info["cuda_int"])
    assert os.path.isfile(out["torchvision_ext"]) and os.path.dirname(out["torchvision_ext"]) == tv_info["ext_dir"]
    assert re.fullmatch(r"_C.*\.so", os.path.basename(out["torchvision_ext"]))
    assert os.path.isfile(os.path.join(out["torch_cmake_prefix"], "Torch", "TorchConfig.cmake"))
    assert out["python"] == cell_python_version() and out["python_executable"] == CELL_PYTHON
    assert out["nvcc"] is None and out["cuda_root"] is None  # none on PATH, none named
    first = subprocess.run(["c++", "--version"], stdout=subprocess.PIPE, universal_newlines=True,
                           env=cell_env(PATH=PATH)).stdout.splitlines()[0]
    assert out["cxx"] == first
    if out["torch_cuda"] is None:
        assert out["cudnn"] is None


def test_nvcc_from_cuda_root(torch_info):
    nvcc = nvcc_or_skip("no nvcc on this machine")
    root = os.path.dirname(os.path.dirname(nvcc))
    version = subprocess.run([nvcc, "--version"], stdout=subprocess.PIPE, universal_newlines=True).stdout
    out, _ = run_json("probe.py", env=cell_env(PATH=PATH, OPMATRIX_CUDA_ROOT=root))
    assert out["cuda_root"] == root
    assert out["nvcc"] == re.search(r"release [\d.]+, V([\d.]+)", version).group(1)


def test_cuda_root_without_nvcc(tmp_path):
    out, _ = run_json("probe.py", env=cell_env(PATH=PATH, OPMATRIX_CUDA_ROOT=str(tmp_path)))
    assert out["nvcc"] is None and out["cuda_root"] == str(tmp_path)
    assert "nvcc: OPMATRIX_CUDA_ROOT=%s has no bin/nvcc" % tmp_path in out["errors"]


def test_failing_compiler_is_an_error_line(tmp_path):
    out, _ = run_json("probe.py", env=cell_env(PATH=PATH, CXX="/bin/false", OPMATRIX_CUDA_ROOT=None))
    assert out["cxx"] is None
    assert any(e.startswith("/bin/false --version: exit 1") for e in out["errors"]), out["errors"]


def test_without_torch():
    # -S: no site-packages, so neither torch nor torchvision; still one JSON object, exit 0.
    out, _ = run_json("probe.py", python_args=["-S"], env=cell_env(PATH=PATH, PYTHONPATH=None))
    assert set(out) == KEYS
    assert out["torch"] is None and out["cxx11_abi"] is None and out["torchvision"] is None
    assert any(e.startswith("import torch: ModuleNotFoundError") for e in out["errors"]), out["errors"]


def test_broken_torch_that_prints_and_exits(tmp_path):
    # A torch whose import writes to stdout (Python and the raw fd) and raises SystemExit.
    pkg = tmp_path / "torch"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("import os\nprint('torch-noise: print')\n"
                                     "os.write(1, b'torch-noise: fd 1\\n')\nraise SystemExit(3)\n")
    out, r = run_json("probe.py", python_args=["-S"], env=cell_env(PATH=PATH, PYTHONPATH=str(tmp_path)))
    assert out["torch"] is None
    assert "import torch: SystemExit: 3" in out["errors"]
    assert "torch-noise: print" in r.stderr and "torch-noise: fd 1" in r.stderr


def test_torchvision_import_fails_extension_still_asked(torch_info, tv_info, tmp_path):
    # A torchvision whose __init__ raises, with the real extension inside: the version comes
    # from the metadata, the CUDA version from the extension itself.
    real_ext = [f for f in os.listdir(tv_info["ext_dir"]) if re.fullmatch(r"_C.*\.so", f)]
    if not real_ext:
        pytest.skip("torchvision has no _C extension")
    pkg = tmp_path / "torchvision"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("raise ImportError('broken on purpose')\n")
    os.symlink(os.path.join(tv_info["ext_dir"], real_ext[0]), str(pkg / real_ext[0]))
    out, _ = run_json("probe.py", env=cell_env(PATH=PATH, PYTHONPATH=str(tmp_path)))
    assert out["torch"] == torch_info["version"]
    assert out["torchvision_ext"] == str(pkg / real_ext[0])
    assert "import torchvision: ImportError: broken on purpose" in out["errors"]
    if tv_info["metadata"] is not None:
        assert out["torchvision"] == tv_info["metadata"] and out["torchvision_from"] == "metadata"
    assert out["torchvision_cuda"] == probe.decode_cuda_int(tv_info["cuda_int"])
    assert not any(e.startswith("torchvision extension") for e in out["errors"]), out["errors"]


def test_torchvision_without_extension(torch_info, tmp_path):
    pkg = tmp_path / "torchvision"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("__version__ = '0.0.0+fake'\n")
    out, _ = run_json("probe.py", env=cell_env(PATH=PATH, PYTHONPATH=str(tmp_path)))
    assert out["torchvision_ext"] is None
    assert out["torchvision"] == "0.0.0+fake"
    assert any(e.startswith("torchvision_ext: no _C*.so in torchvision package") for e in out["errors"])
