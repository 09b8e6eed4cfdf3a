"""wheel_metadata.py: a wheel's torch requirement against the cell's torch (the host's), its
tags reported; no wheel folder is a skip."""
import subprocess
import zipfile

import pytest

from conftest import CELL_PYTHON, cell_env, run_json


def wheel(folder, requires, tag="cp311-cp311-linux_x86_64", inside=None, files=()):
    """inside: the WHEEL file's tag where it differs from the file name's; files: more members."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / ("mylib-0.1-%s.whl" % tag)
    with zipfile.ZipFile(path, "w") as z:
        for name in files:
            z.writestr(name, b"\x7fELF")
        z.writestr("mylib-0.1.dist-info/WHEEL", "Wheel-Version: 1.0\nTag: %s\n" % (inside or tag))
        z.writestr("mylib-0.1.dist-info/METADATA",
                   "Name: mylib\n" + "".join("Requires-Dist: %s\n" % r for r in requires))
    return path


def checks_for(build):
    out, _ = run_json("wheel_metadata.py", env=cell_env(OPMATRIX_BUILD=str(build)))
    return out["checks"]


@pytest.fixture(scope="module")
def torch_version(torch_info):
    return torch_info["version"].split("+")[0]


def test_a_requirement_this_torch_misses_fails(tmp_path, torch_version):
    major = int(torch_version.split(".")[0])
    wheel(tmp_path / "wheel", ["torch>=%d.0" % (major + 1), "numpy"])
    checks = checks_for(tmp_path)
    assert [c["status"] for c in checks] == ["fail"]
    assert checks[0]["diagnosis"]["kind"] == "torch_requirement"
    assert torch_version in checks[0]["message"]
    assert checks[0]["diagnosis"]["evidence"] == "Requires-Dist: torch>=%d.0" % (major + 1)


def test_a_met_requirement_passes_and_reports_tags(tmp_path, torch_version):
    wheel(tmp_path / "wheel", ["torch>=%s" % torch_version], tag="cp311-cp311-manylinux_2_28_x86_64")
    checks = checks_for(tmp_path)
    assert [c["status"] for c in checks] == ["pass"]
    assert "manylinux_2_28_x86_64" in checks[0]["message"] and "met by torch" in checks[0]["message"]
    assert "local platform tag" not in checks[0]["message"]


def test_no_requirement_and_local_tag_are_said(tmp_path, torch_version):
    wheel(tmp_path / "wheel", ["numpy", "torchvision>=0.1"])  # torchvision is not torch
    checks = checks_for(tmp_path)
    assert checks[0]["status"] == "pass"
    assert "declares no torch requirement" in checks[0]["message"]
    assert "local platform tag" in checks[0]["message"]


def test_a_pure_python_wheel_has_no_local_platform_tag(tmp_path, torch_version):
    # py3-none-any is what PyPI takes for pure Python (torchopt 0.7.3's): not a local tag.
    wheel(tmp_path / "wheel", ["numpy"], tag="py3-none-any")
    checks = checks_for(tmp_path)
    assert "tags py3-none-any" in checks[0]["message"]
    assert "local platform tag" not in checks[0]["message"]


def test_no_wheel_is_a_skip(tmp_path):
    checks = checks_for(tmp_path / "cmake-build")
    assert [c["status"] for c in checks] == ["skip"]


def test_the_torch_version_the_probe_read_is_the_one_judged(tmp_path):
    # The harness passes the probe's torch (OPMATRIX_TORCH_VERSION): the step does not import
    # torch again, and judges by that version, not by whatever torch the host has.
    wheel(tmp_path / "wheel", ["torch==1.0.1"])
    out, _ = run_json("wheel_metadata.py", env=cell_env(OPMATRIX_BUILD=str(tmp_path), OPMATRIX_TORCH_VERSION="1.0.1"))
    assert [c["status"] for c in out["checks"]] == ["pass"]
    assert "met by torch 1.0.1" in out["checks"][0]["message"]


def test_a_wheel_renamed_after_its_build_is_judged_by_its_file_name(tmp_path, torch_version):
    # torchvision 0.29.2 on PyPI: the file says manylinux_2_28, its WHEEL file linux_x86_64 (the
    # wheel renamed after the build). pip installs it by its file name: no local platform tag.
    wheel(tmp_path / "wheel", ["torch>=%s" % torch_version], tag="py3-none-manylinux_2_28_x86_64",
          inside="py3-none-linux_x86_64")
    checks = checks_for(tmp_path)
    assert [c["status"] for c in checks] == ["pass"]
    assert "tags py3-none-manylinux_2_28_x86_64" in checks[0]["message"]
    assert "local platform tag" not in checks[0]["message"]
    assert "its WHEEL file says py3-none-linux_x86_64" in checks[0]["message"]


def test_the_torch_requirement_is_the_plain_installs_else_the_torch_extras(tmp_path, torch_version):
    # deepmd-kit 3.2.0: `torch; extra == "dpa-adapt"` first, `torch==2.11.0; extra == "torch"` for its
    # torch side; neither applies to a plain install, so the torch extra's is the one judged (it
    # read "requires torch; extra == "dpa-adapt" (met by torch …)", a pairing it never declared).
    build = tmp_path / "b"
    wheel(build / "wheel", ["numpy", 'torch; extra == "dpa-adapt"', 'torch==0.0.1; extra == "torch"'])
    [c] = checks_for(build)
    assert c["status"] == "fail", c
    assert 'requires torch==0.0.1; extra == "torch"' in c["message"], c["message"]
    # Another platform's requirement is not this install's.
    build = tmp_path / "c"
    wheel(build / "wheel", ['torch==0.0.1; sys_platform == "win32"'])
    [c] = checks_for(build)
    assert c["status"] == "pass" and "declares no torch requirement" in c["message"], c["message"]


@pytest.fixture(scope="module")
def cell_python_version():
    out = subprocess.run([CELL_PYTHON, "-c", "import sys; print('%d%d' % sys.version_info[:2])"],
                         stdout=subprocess.PIPE, universal_newlines=True, check=True)
    return out.stdout.strip()


def test_a_module_for_another_python_in_a_wheel_for_any_python_fails(tmp_path, torch_version, cell_python_version):
    # uccl 0.0.1.post4: a py3-none-manylinux_2_35 wheel holding p2p.cpython-310-x86_64-linux-gnu.so,
    # which pip installs into Python 3.11 too, where `from uccl import p2p` finds no module.
    other = "39" if cell_python_version != "39" else "310"
    wheel(tmp_path / "wheel", [], tag="py3-none-manylinux_2_35_x86_64",
          files=["mylib/p2p.cpython-%s-x86_64-linux-gnu.so" % other, "mylib/ok.abi3.so"])
    checks = checks_for(tmp_path)
    assert [(c["status"], c.get("subtest")) for c in checks] == [("fail", "tag"), ("pass", None)], checks
    assert checks[0]["diagnosis"]["kind"] == "module_for_another_python"
    assert checks[1]["message"].endswith("declares no torch requirement"), "its declared side still said"
    assert checks[0]["message"].startswith("p2p.cpython-%s-x86_64-linux-gnu.so is a module only CPython %s.%s imports" % (
        other, other[0], other[1:])), checks[0]["message"]
    assert checks[0]["diagnosis"]["fix"].startswith("for the library: tag the wheel cp%s-cp%s" % (other, other))


@pytest.mark.parametrize("tag, version", [("py3-none-manylinux_2_35_x86_64", "same"),
                                          ("cp39-cp39-manylinux_2_28_x86_64", "39")])
def test_a_per_python_module_its_python_imports_or_its_wheel_tags_passes(tmp_path, torch_version, cell_python_version,
                                                                         tag, version):
    version = cell_python_version if version == "same" else version
    wheel(tmp_path / "wheel", [], tag=tag, files=["mylib/p2p.cpython-%s-x86_64-linux-gnu.so" % version])
    assert [c["status"] for c in checks_for(tmp_path)] == ["pass"]
