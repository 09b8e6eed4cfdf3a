"""limited_api.py: an abi3 claim judged from the wheel's tag, its modules' names and what its
native libraries link (real ELF files, compiled here; libtorch_python is a stand-in library,
since what is checked is the wheel's link, not torch)."""
import shutil
import subprocess
import zipfile

import pytest

from conftest import cell_env, run_json

pytestmark = pytest.mark.skipif(not shutil.which("cc") or not shutil.which("readelf"),
                                reason="needs a C compiler and readelf to make real ELF libraries")


def shared_library(folder, name, links=()):
    """A real .so; `links` are names of libraries (made here too) it must NEED."""
    source = folder / (name + ".c")
    source.write_text("int %s_value(void) { return 1; }\n" % name.replace(".", "_").replace("-", "_"))
    out = folder / name
    argv = ["cc", "-shared", "-fPIC", "-o", str(out), str(source), "-L" + str(folder), "-Wl,--no-as-needed"]
    for lib in links:
        stub = folder / ("lib%s.so" % lib)
        if not stub.exists():
            subprocess.run(["cc", "-shared", "-fPIC", "-o", str(stub), "-x", "c", "/dev/null"], check=True)
        argv.append("-l" + lib)
    subprocess.run(argv, check=True)
    return out


def wheel(build, tag, members):
    """members: {path in wheel: real file}."""
    folder = build / "wheel"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / ("mylib-0.1-%s.whl" % tag)
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("mylib-0.1.dist-info/WHEEL", "Wheel-Version: 1.0\nTag: %s\n" % tag)
        z.writestr("mylib-0.1.dist-info/METADATA", "Name: mylib\n")
        for name, file in members.items():
            z.write(file, name)
    return path


def by_subtest(build):
    out, _ = run_json("limited_api.py", env=cell_env(OPMATRIX_BUILD=str(build)))
    return {c.get("subtest", ""): c for c in out["checks"]}


def test_a_clean_abi3_wheel_passes_and_names_the_python(tmp_path):
    lib = shared_library(tmp_path, "ops.so")
    wheel(tmp_path / "build", "cp39-abi3-manylinux_2_28_x86_64", {"mylib/_C.abi3.so": lib})
    checks = by_subtest(tmp_path / "build")
    assert checks["tag"]["status"] == "pass" and "cp39-abi3" in checks["tag"]["message"]
    assert checks["links"]["status"] == "pass"
    assert "CPython 3." in checks["links"]["message"] and "sha256 " in checks["links"]["message"]


def test_a_per_python_module_inside_an_abi3_wheel_and_libtorch_python_fail(tmp_path):
    # torchao 0.18.0's wheel: _C_mxfp8.cpython-310-x86_64-linux-gnu.so, linking libtorch_python.
    clean = shared_library(tmp_path, "clean.so")
    full = shared_library(tmp_path, "full.so", links=["torch_python"])
    wheel(tmp_path / "build", "cp310-abi3-manylinux_2_28_x86_64",
          {"mylib/_C.abi3.so": clean, "mylib/_C_extra.cpython-310-x86_64-linux-gnu.so": full})
    checks = by_subtest(tmp_path / "build")
    # A note: torch.ops.load_library loads it by path in any Python; an import by name that
    # fails is the load check's red.
    assert checks["tag"]["status"] == "skip" and "a note, not a limit" in checks["tag"]["message"]
    assert "_C_extra.cpython-310-x86_64-linux-gnu.so is built for CPython 3.10 only" in checks["tag"]["message"]
    assert checks["links"]["status"] == "fail"
    assert checks["links"]["diagnosis"]["kind"] == "not_limited_api"
    assert "links libtorch_python.so" in checks["links"]["message"]
    assert "_C.abi3.so" not in checks["links"]["diagnosis"]["evidence"]


def test_limited_api_modules_in_a_per_python_wheel_are_a_note(tmp_path):
    # torchaudio 2.11.0: _torchaudio.abi3.so in one wheel per Python (cp311-cp311, cp312-cp312…):
    # pip installs each where its tag says; nobody loses anything. The links of a wheel that does
    # not claim abi3 by its tag are not judged (a per-Python wheel may use that Python's API).
    lib = shared_library(tmp_path, "ops.so", links=["torch_python"])
    wheel(tmp_path / "build", "cp311-cp311-linux_x86_64", {"mylib/_C.abi3.so": lib})
    checks = by_subtest(tmp_path / "build")
    assert list(checks) == ["tag"]
    assert checks["tag"]["status"] == "skip"
    assert "bdist_wheel was not given py_limited_api" in checks["tag"]["message"]
    assert "py_limited_api': 'cp39'" in checks["tag"]["message"]


def test_no_claim_and_no_wheel_are_skips(tmp_path):
    lib = shared_library(tmp_path, "ops.so")
    wheel(tmp_path / "build", "cp311-cp311-linux_x86_64", {"mylib/_C.cpython-311-x86_64-linux-gnu.so": lib})
    assert [c["status"] for c in by_subtest(tmp_path / "build").values()] == ["skip"]
    assert [c["status"] for c in by_subtest(tmp_path / "none").values()] == ["skip"]
