"""cxx11_abi.py: libraries really compiled with each std::string ABI, read with the real nm:
the ABI that is not torch's fails and names a symbol, torch's own passes, and a library that
passes no std::string to torch is not judged. Then the script as the cell runs it, against
this machine's torch (skipped, with the reason, where there is none)."""
import importlib.util
import os
import shutil
import subprocess
import sys

import pytest

from conftest import CELL, CELL_PYTHON, cell_env, run_json

# A call into torch's namespace with a std::string, left undefined as in a real op library.
SOURCE = """
#include <string>
namespace c10 { namespace detail { void torchCheckFail(const char*, const char*, unsigned, const std::string&); } }
void op_library_entry() { c10::detail::torchCheckFail("f", "file", 1, std::string("msg")); }
"""
NO_STRING = """
namespace c10 { void warn_once(int); }
void op_library_entry() { c10::warn_once(1); }
"""

pytestmark = pytest.mark.skipif(shutil.which("g++") is None or shutil.which("nm") is None,
                                reason="needs g++ and nm (binutils) to build and read real libraries")


def module():
    spec = importlib.util.spec_from_file_location("cxx11_abi", str(CELL / "cxx11_abi.py"))
    sys.path.insert(0, str(CELL))
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    return m


def library(tmp_path, name, source, abi):
    src = tmp_path / (name + ".cpp")
    src.write_text(source)
    out = tmp_path / ("lib" + name + ".so")
    subprocess.run(["g++", "-shared", "-fPIC", f"-D_GLIBCXX_USE_CXX11_ABI={abi}", str(src), "-o", str(out)], check=True)
    return str(out)


@pytest.mark.parametrize("torch_new_abi", [True, False])
def test_the_other_abi_fails_and_names_the_symbol(tmp_path, torch_new_abi):
    m = module()
    wrong = library(tmp_path, "wrong", SOURCE, 0 if torch_new_abi else 1)
    right = library(tmp_path, "right", SOURCE, 1 if torch_new_abi else 0)
    bad = m.library_result(wrong, torch_new_abi)
    assert bad["status"] == "fail" and bad["check"] == "cxx11_abi"
    assert bad["diagnosis"]["kind"] == "cxx11_abi_mismatch"
    assert "c10::detail::torchCheckFail" in bad["diagnosis"]["evidence"]
    assert "libwrong.so" in bad["message"]
    good = m.library_result(right, torch_new_abi)
    assert good["status"] == "pass", good


def test_a_library_passing_no_string_to_torch_is_not_judged(tmp_path):
    lib = library(tmp_path, "nostring", NO_STRING, 0)
    r = module().library_result(lib, True)
    assert r["status"] == "skip" and "std::string" in r["message"]


def test_in_this_machines_torch_its_own_abi_passes(tmp_path):
    probe = subprocess.run([CELL_PYTHON, "-c", "import torch; print(int(torch._C._GLIBCXX_USE_CXX11_ABI))"],
                           capture_output=True, text=True)
    if probe.returncode != 0:
        pytest.skip("no torch for " + CELL_PYTHON + ": install Debian's python3-torch (scripts/install-deps.sh --host-cell)")
    lib = library(tmp_path, "own", SOURCE, int(probe.stdout.strip()))
    out, _ = run_json("cxx11_abi.py", lib, env=cell_env())
    assert [c["status"] for c in out["checks"]] == ["pass"], out


@pytest.mark.parametrize("abi", [0, 1])
def test_the_abi_the_probe_read_is_the_one_judged(tmp_path, abi):
    # The harness passes the probe's flag (OPMATRIX_TORCH_CXX11_ABI): the step does not import
    # torch again; a library of the other ABI fails by that flag, whatever torch the host has.
    lib = library(tmp_path, "other", SOURCE, 1 - abi)
    out, _ = run_json("cxx11_abi.py", lib, env=cell_env(OPMATRIX_TORCH_CXX11_ABI=str(abi)))
    assert [c["status"] for c in out["checks"]] == ["fail"], out
