"""scripts/cell/install_wheel.py with tiny wheels made here (a dist-info and a stand-in .so):
installed into BUILD/site and summarised; a wheel for another platform, a file that is no wheel."""
import base64
import json
import hashlib
import os
import sys
import subprocess
import zipfile

import pytest

from conftest import CELL, CELL_PYTHON, run_json, run_script

SCRIPT = "install_wheel.py"
sys.path.insert(0, str(CELL))


@pytest.fixture(scope="module", autouse=True)
def has_pip():
    if subprocess.run([CELL_PYTHON, "-m", "pip", "--version"], stdout=subprocess.DEVNULL,
                      stderr=subprocess.DEVNULL).returncode != 0:
        pytest.skip("%s has no pip (python3-pip)" % CELL_PYTHON)


@pytest.fixture(scope="module")
def best_tag():
    code = "import sys; sys.path.insert(0, %r); import wheel_tags; print(wheel_tags.interpreter_tags()[0])"
    return subprocess.run([CELL_PYTHON, "-c", code % str(CELL)], stdout=subprocess.PIPE,
                          universal_newlines=True, check=True).stdout.strip()


def make_wheel(folder, tag, requires=(), members=None, executable=()):
    """opm_tiny-1.0-TAG.whl with opm_tiny/__init__.py, opm_tiny/_C.so (not a real library: pip does
    not look inside) and a valid RECORD; `members` ({path: bytes}) replaces the _C.so; the paths in
    `executable` get mode 755 (pip keeps the executable bit)."""
    files = {"opm_tiny/__init__.py": b"VALUE = 42\n",
             **(members if members is not None else {"opm_tiny/_C.so": b"\x7fELF stand-in\n"}),
             "opm_tiny-1.0.dist-info/METADATA": ("Metadata-Version: 2.1\nName: opm-tiny\nVersion: 1.0\n" + "".join(
                 "Requires-Dist: %s\n" % r for r in requires)).encode(),
             "opm_tiny-1.0.dist-info/WHEEL": ("Wheel-Version: 1.0\nGenerator: opmatrix-tests\nRoot-Is-Purelib: false\n"
                                              "Tag: %s\n" % tag).encode()}
    record = []
    for path, data in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        record.append("%s,sha256=%s,%d" % (path, digest, len(data)))
    record.append("opm_tiny-1.0.dist-info/RECORD,,")
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / ("opm_tiny-1.0-%s.whl" % tag)
    with zipfile.ZipFile(str(path), "w") as z:
        for p, data in files.items():
            info = zipfile.ZipInfo(p)
            info.external_attr = (0o100755 if p in executable else 0o100644) << 16
            z.writestr(info, data)
        z.writestr("opm_tiny-1.0.dist-info/RECORD", "\n".join(record) + "\n")
    return path


def test_installs_into_site_and_lists_the_libraries(tmp_path, best_tag):
    wheel = make_wheel(tmp_path / "fetched", best_tag, requires=["torch>=2.0", "numpy"])
    build = tmp_path / "b"
    (build / "site" / "stale").mkdir(parents=True)  # an earlier install's leftovers go
    out, _ = run_json(SCRIPT, wheel, build)
    assert out["ok"] is True
    assert out["site"] == str(build / "site") and out["wheel"] == str(build / "wheel" / wheel.name)
    assert out["libraries"] == ["opm_tiny/_C.so"]
    assert out["tags"] == [best_tag] and out["requires"] == ["torch>=2.0", "numpy"]
    assert (build / "site" / "opm_tiny" / "__init__.py").read_text() == "VALUE = 42\n"
    assert not (build / "site" / "stale").exists()
    assert (build / "wheel" / wheel.name).read_bytes() == wheel.read_bytes()  # for the `wheel` check


def test_its_requirements_sit_beside_it_as_in_one_site_packages(tmp_path, best_tag):
    # cuequivariance-ops-torch's extension finds libcue_ops.so at $ORIGIN/../cuequivariance_ops/lib,
    # which pip puts in the same site-packages: the requirements step's folders are linked into
    # site, and the package's own libraries are still the only ones listed.
    wheel = make_wheel(tmp_path / "fetched", best_tag)
    build = tmp_path / "b"
    lib = build / "deps" / "opm_dep" / "lib"
    lib.mkdir(parents=True)
    (lib / "libopm_dep.so").write_bytes(b"\x7fELF stand-in\n")
    (build / "deps" / "six.py").write_text("")
    out, _ = run_json(SCRIPT, wheel, build)
    assert out["libraries"] == ["opm_tiny/_C.so"], "a requirement's libraries are not the project's"
    assert (build / "site" / "opm_dep" / "lib" / "libopm_dep.so").exists()
    assert (build / "site" / "opm_dep").is_symlink() and not (build / "site" / "six.py").exists()


def test_a_package_it_shares_with_a_requirement_is_one_package_again(tmp_path, best_tag):
    # featomic-torch 0.7.6 installs featomic/torch/ (no featomic/__init__.py); its requirement
    # featomic installs featomic/__init__.py and featomic/lib/. One folder in a user's site-packages;
    # here two, and Python took the regular package in deps alone: "No module named 'featomic.torch'".
    wheel = make_wheel(tmp_path / "fetched", best_tag, members={
        "opm_tiny/torch/__init__.py": b"from opm_tiny import CORE\nTORCH = CORE + 1\n",
        "opm_tiny/torch/torch-2.6/lib/libopm_tiny_torch.so": b"\x7fELF stand-in\n"})
    build = tmp_path / "b"
    core = build / "deps" / "opm_tiny"
    (core / "lib").mkdir(parents=True)
    (core / "lib" / "libopm_core.so").write_bytes(b"\x7fELF stand-in\n")
    (core / "_core.so").write_bytes(b"\x7fELF stand-in\n")
    out, _ = run_json(SCRIPT, wheel, build)
    site = build / "site"
    # The wheel's own __init__.py (make_wheel's) stays; what it lacks of the requirement's is linked.
    assert (site / "opm_tiny" / "lib").is_symlink() and (site / "opm_tiny" / "_core.so").is_symlink()
    assert not (site / "opm_tiny" / "torch").is_symlink()
    assert out["libraries"] == ["opm_tiny/torch/torch-2.6/lib/libopm_tiny_torch.so"], "the requirement's are not its own"
    code = "import opm_tiny.torch as t; print(t.TORCH)"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(site), str(build / "deps")]))
    (site / "opm_tiny" / "__init__.py").unlink()  # as in featomic-torch: the package's __init__ is the requirement's
    (core / "__init__.py").write_text("CORE = 41\n")
    build_wheel = __import__("build_wheel")
    build_wheel.beside_its_requirements(str(site), str(build / "deps"))
    assert (site / "opm_tiny" / "__init__.py").is_symlink()
    r = subprocess.run([CELL_PYTHON, "-c", code], env=env, stdout=subprocess.PIPE, universal_newlines=True)
    assert r.stdout.strip() == "42"


@pytest.mark.parametrize("which", ["platform", "python"])
def test_a_wheel_pip_refuses_here_is_said_in_plain_words(tmp_path, best_tag, which):
    interp, abi, _ = best_tag.split("-")
    tag = "%s-%s-win_arm64" % (interp, abi) if which == "platform" else "cp27-cp27mu-%s" % best_tag.split("-")[2]
    r = run_script(SCRIPT, make_wheel(tmp_path, tag), tmp_path / "b")
    assert r.returncode == 1 and r.json["ok"] is False and r.json["error"] == "wrong_platform", r.stdout
    words = "the wheel is for another platform" if which == "platform" else "needs %s" % interp
    assert words in r.json["message"], r.json["message"]


def test_not_a_wheel(tmp_path):
    (tmp_path / "x.whl").write_text("not a zip")
    for path in (tmp_path / "x.whl", tmp_path / "absent.whl"):
        r = run_script(SCRIPT, path, tmp_path / "b")
        assert r.returncode == 1 and r.json["error"] == "not_a_wheel"


def test_a_wheel_that_compiles_its_sources_at_first_use_says_what_and_where(tmp_path):
    # gsplat 1.5.3: a py3-none-any wheel with CUDA/C++ sources that gsplat/cuda/_backend.py builds
    # with torch.utils.cpp_extension when first used.
    jit = {"opm_tiny/csrc/ops.cu": b"__global__ void k() {}\n", "opm_tiny/csrc/ops.cpp": b"int f();\n",
           "opm_tiny/csrc/bind.cpp": b"int g();\n",
           "opm_tiny/_backend.py": b"from torch.utils.cpp_extension import load\n_C = None\n"}
    out, _ = run_json(SCRIPT, make_wheel(tmp_path / "fetched", "py3-none-any", members=jit), tmp_path / "b")
    assert out["libraries"] == []
    assert out["jit"] == {"sources": {".cpp": 2, ".cu": 1}, "builders": ["opm_tiny/_backend.py"]}
    # A setup script shipped beside them builds them at install, by hand (hqq 0.2.8's
    # hqq/kernels/setup_cuda.py): not a compile at first use.
    del jit["opm_tiny/_backend.py"]
    jit["opm_tiny/csrc/setup_cuda.py"] = (b"from setuptools import setup\n"
                                          b"from torch.utils.cpp_extension import CUDAExtension, BuildExtension\n"
                                          b"setup(name='opm_aten', ext_modules=[CUDAExtension('opm_aten', ['ops.cu'])],\n"
                                          b"      cmdclass={'build_ext': BuildExtension})\n")
    out, _ = run_json(SCRIPT, make_wheel(tmp_path / "fetched3", "py3-none-any", members=jit), tmp_path / "b3")
    assert "jit" not in out
    # Sources without a module that builds them (headers shipped for others to compile against).
    del jit["opm_tiny/csrc/setup_cuda.py"]
    out, _ = run_json(SCRIPT, make_wheel(tmp_path / "fetched2", "py3-none-any", members=jit), tmp_path / "b2")
    assert "jit" not in out


def test_a_wheel_shipping_cuda_device_code_files_names_them(tmp_path):
    # cpm-kernels 1.0.11: a py3-none-any wheel with no shared library and 11 .fatbin files it loads
    # through the CUDA driver.
    members = {"opm_dev/__init__.py": b"", "opm_dev/kernels/b.fatbin": b"\x50\xed\x55\xba",
               "opm_dev/kernels/a.fatbin": b"\x50\xed\x55\xba", "opm_dev/kernels/c.ptx": b".version 8.0\n"}
    out, _ = run_json(SCRIPT, make_wheel(tmp_path / "fetched", "py3-none-any", members=members), tmp_path / "b")
    assert out["libraries"] == []
    assert out["device_code"] == {"files": {".fatbin": 2, ".ptx": 1},
                                  "paths": ["opm_dev/kernels/a.fatbin", "opm_dev/kernels/b.fatbin",
                                            "opm_dev/kernels/c.ptx"]}
    del members["opm_dev/kernels/a.fatbin"], members["opm_dev/kernels/b.fatbin"], members["opm_dev/kernels/c.ptx"]
    out, _ = run_json(SCRIPT, make_wheel(tmp_path / "fetched2", "py3-none-any", members=members), tmp_path / "b2")
    assert "device_code" not in out


def test_a_wheel_shipping_a_program_names_it_and_what_it_links(tmp_path):
    # pnnx 20261020: a py3 wheel with no shared library, its compiled part an ELF program
    # (pnnx/pnnx) its functions run as a subprocess. A real ELF program: /bin/true, a PIE (ET_DYN
    # like a shared library: told apart by its executable bit, which pip keeps).
    program = open("/bin/true", "rb").read()
    # A GPU's code object is ELF too, for another processor (amd-aiter's .co files: e_machine AMDGPU, 224).
    gpu_code = program[:18] + (224).to_bytes(2, "little") + program[20:]
    members = {"opm_prog/__init__.py": b"", "opm_prog/opm_prog": program, "opm_prog/notes.txt": b"\x7fELF but text",
               "opm_prog/not_executable": program, "opm_prog/kernel.co": gpu_code}
    wheel = make_wheel(tmp_path / "fetched", "py3-none-any", members=members,
                       executable={"opm_prog/opm_prog", "opm_prog/kernel.co"})
    out, _ = run_json(SCRIPT, wheel, tmp_path / "b")
    assert out["libraries"] == []
    assert out["programs"]["count"] == 1 and out["programs"]["paths"] == ["opm_prog/opm_prog"]
    # It links no torch library, and every library it needs is here.
    assert out["programs"]["torch_libraries"] == [] and out["programs"]["missing"] == []
    del members["opm_prog/opm_prog"]
    out, _ = run_json(SCRIPT, make_wheel(tmp_path / "fetched2", "py3-none-any", members=members), tmp_path / "b2")
    assert "programs" not in out


def test_a_pure_wheel_taken_where_the_compiled_ones_do_not_fit_names_them(tmp_path):
    # torchopt 0.7.3 and torchdata 0.7.1 in Python 3.13: cp38-cp311 wheels with the extension, and a
    # py3-none-any one without it, which pip takes. fetch_pypi.py keeps the release's file list
    # (release.json) beside the wheel it fetched.
    fetched = tmp_path / "fetched"
    wheel = make_wheel(fetched, "py3-none-any", members={})
    listing = {"version": "1.0", "files": [
        {"filename": n} for n in ("opm_tiny-1.0-cp38-cp38-manylinux2014_x86_64.whl",
                                  "opm_tiny-1.0-cp311-cp311-manylinux_2_17_x86_64.manylinux2014_x86_64.whl",
                                  "opm_tiny-1.0-cp311-cp311-win_amd64.whl", "opm_tiny-1.0-py3-none-any.whl",
                                  "opm_tiny-1.0.tar.gz")]}
    (fetched / "release.json").write_text(json.dumps(listing))
    out, _ = run_json(SCRIPT, wheel, tmp_path / "b")
    assert out["libraries"] == []
    assert out["compiled_wheels"] == "cp38/cp311 wheels for manylinux x86_64, win amd64"
    # A release whose only wheel is the pure one (tensordict 0.15.3), or no list at all: nothing said.
    listing["files"] = [{"filename": "opm_tiny-1.0-py3-none-any.whl"}]
    (fetched / "release.json").write_text(json.dumps(listing))
    assert "compiled_wheels" not in run_json(SCRIPT, wheel, tmp_path / "b2")[0]
    (fetched / "release.json").unlink()
    assert "compiled_wheels" not in run_json(SCRIPT, wheel, tmp_path / "b3")[0]
