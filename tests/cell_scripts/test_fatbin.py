"""scripts/cell/fatbin.py: the SASS and PTX a library's fat binary carries, through cuobjdump
when the cell has one, else by reading the .nv_fatbin section directly. Both paths must agree
on libraries built here with nvcc for known -gencode sets."""
import os
import shutil
import stat

import pytest

from conftest import cell_env, compile_or_fail, run_json

DIRECT = "the .nv_fatbin section read directly (no cuobjdump in this cell)"

KERNEL_A = 'extern "C" __global__ void opm_scale(float* x) { x[threadIdx.x] *= 2.0f; }\n'
KERNEL_B = 'extern "C" __global__ void opm_add(float* x) { x[threadIdx.x] += 1.0f; }\n'


@pytest.fixture(scope="module")
def fat(nvcc, cxx, build_root):
    """{name: (path, expected SASS, expected PTX)}: what each library was built to carry."""
    d = build_root / "fatbin"
    d.mkdir(exist_ok=True)
    (d / "a.cu").write_text(KERNEL_A)
    (d / "b.cu").write_text(KERNEL_B)
    # One object: SASS for sm_80 and sm_86, PTX for compute_90 only.
    compile_or_fail([nvcc, "-shared", "-Xcompiler", "-fPIC", "-o", "libone.so", "a.cu",
                     "-gencode", "arch=compute_80,code=sm_80", "-gencode", "arch=compute_86,code=sm_86",
                     "-gencode", "arch=compute_90,code=compute_90"], "libone.so", cwd=d)
    # Two objects, two fat binaries in one .nv_fatbin section: sm_75 SASS + PTX from b.cu,
    # sm_89 SASS from a.cu; the union must come out.
    compile_or_fail([nvcc, "-c", "-Xcompiler", "-fPIC", "-o", "b.o", "b.cu",
                     "-gencode", "arch=compute_75,code=[sm_75,compute_75]"], "b.o", cwd=d)
    compile_or_fail([nvcc, "-c", "-Xcompiler", "-fPIC", "-o", "a.o", "a.cu",
                     "-gencode", "arch=compute_89,code=sm_89"], "a.o", cwd=d)
    compile_or_fail([nvcc, "-shared", "-o", "libtwo.so", "a.o", "b.o"], "libtwo.so", cwd=d)
    (d / "plain.cpp").write_text("int opm_plain(int x) { return 2 * x; }\n")
    compile_or_fail([cxx, "-shared", "-fPIC", "-o", "libplain.so", "plain.cpp"], "libplain.so", cwd=d)
    return {
        "one": (str(d / "libone.so"), ["sm_80", "sm_86"], ["sm_90"]),
        "two": (str(d / "libtwo.so"), ["sm_75", "sm_89"], ["sm_75"]),
        "plain": (str(d / "libplain.so"), [], []),
    }


@pytest.fixture(scope="module")
def no_tool(tmp_path_factory):
    """A CUDA root without cuobjdump and a PATH without it: forces the direct reader."""
    root = tmp_path_factory.mktemp("cuda-root-without-cuobjdump")
    (root / "bin").mkdir()
    path = "/usr/bin:/bin"
    if shutil.which("cuobjdump", path=path):
        pytest.skip("cuobjdump is on %s: the direct reader cannot be forced" % path)
    return str(root), cell_env(PATH=path)


@pytest.fixture(scope="module")
def with_tool(cuobjdump, tmp_path_factory):
    """A CUDA root whose bin/cuobjdump is the real one, and a PATH without any."""
    root = tmp_path_factory.mktemp("cuda-root-with-cuobjdump")
    (root / "bin").mkdir()
    os.symlink(cuobjdump, str(root / "bin" / "cuobjdump"))
    return str(root), cell_env(PATH="/usr/bin:/bin")


@pytest.mark.parametrize("name", ["one", "two", "plain"])
def test_direct_reader(fat, no_tool, name):
    path, sass, ptx = fat[name]
    root, env = no_tool
    out, _ = run_json("fatbin.py", "--cuda-root", root, path, env=env)
    assert out == {"library": path, "tool": DIRECT, "elf": sass, "ptx": ptx, "error": None}


def test_several_libraries_in_one_call_each_as_alone(fat, no_tool):
    # A package's libraries are read in one container: the answer lists each library's object,
    # the same as a call of its own gives, in the order given.
    root, env = no_tool
    paths = [fat[n][0] for n in ("one", "plain", "two")]
    out, _ = run_json("fatbin.py", "--cuda-root", root, *paths, env=env)
    alone = [run_json("fatbin.py", "--cuda-root", root, p, env=env)[0] for p in paths]
    assert out == {"libraries": alone}
    assert [o["elf"] for o in out["libraries"]] == [fat["one"][1], [], fat["two"][1]]


@pytest.mark.parametrize("name", ["one", "two", "plain"])
def test_cuobjdump_and_direct_reader_agree(fat, no_tool, with_tool, name):
    path, sass, ptx = fat[name]
    out, _ = run_json("fatbin.py", "--cuda-root", with_tool[0], path, env=with_tool[1])
    assert out["tool"] == os.path.join(with_tool[0], "bin", "cuobjdump")
    assert out["error"] is None  # a CPU-only library is "does not contain device code": no error
    assert (out["elf"], out["ptx"]) == (sass, ptx)
    assert out["cross_check"] == "agrees"
    direct, _ = run_json("fatbin.py", "--cuda-root", no_tool[0], path, env=no_tool[1])
    assert (direct["elf"], direct["ptx"]) == (out["elf"], out["ptx"])


def test_cross_check_says_when_the_tool_and_the_section_differ(fat, tmp_path):
    # A cuobjdump that lists sm_75 SASS alone: the section itself says otherwise, and the
    # answer stays the tool's.
    path, sass, ptx = fat["one"]
    root = tmp_path / "root"
    (root / "bin").mkdir(parents=True)
    tool = root / "bin" / "cuobjdump"
    tool.write_text("#!/bin/sh\n[ \"$1\" = --list-elf ] && echo 'ELF file    1: lib.1.sm_75.cubin'\nexit 0\n")
    tool.chmod(0o755)
    out, _ = run_json("fatbin.py", "--cuda-root", root, path, env=cell_env(PATH="/usr/bin:/bin"))
    assert (out["elf"], out["ptx"], out["error"]) == (["sm_75"], [], None)
    assert out["cross_check"] == "differs: the section read directly holds SASS %s and PTX %s" % (sass, ptx)


def test_cuobjdump_from_path(fat, cuobjdump, tmp_path):
    # No --cuda-root: the cuobjdump on PATH.
    bindir = tmp_path / "bin"
    bindir.mkdir()
    os.symlink(cuobjdump, str(bindir / "cuobjdump"))
    path, sass, ptx = fat["one"]
    out, _ = run_json("fatbin.py", path, env=cell_env(PATH="%s:/usr/bin:/bin" % bindir))
    assert out["tool"] == str(bindir / "cuobjdump")
    assert (out["elf"], out["ptx"], out["error"]) == (sass, ptx, None)


def test_cuobjdump_failure_is_reported(fat, tmp_path):
    # A cuobjdump that fails for another reason than "no device code": its output is the error.
    root = tmp_path / "root"
    (root / "bin").mkdir(parents=True)
    tool = root / "bin" / "cuobjdump"
    tool.write_text("#!/bin/sh\necho 'cuobjdump fatal   : broken on purpose' >&2\nexit 1\n")
    tool.chmod(tool.stat().st_mode | stat.S_IXUSR)
    out, _ = run_json("fatbin.py", "--cuda-root", root, fat["one"][0], env=cell_env(PATH="/usr/bin:/bin"))
    assert out["tool"] == str(tool)
    assert out["elf"] == [] and out["ptx"] == []
    assert "broken on purpose" in out["error"]


def test_direct_reader_missing_file(no_tool, tmp_path):
    out, _ = run_json("fatbin.py", "--cuda-root", no_tool[0], tmp_path / "libnothing.so", env=no_tool[1])
    assert out["tool"] == DIRECT
    assert out["error"].startswith("no cuobjdump in this cell, and the fat binary could not be read")


def test_direct_reader_truncated_elf(no_tool, tmp_path):
    # ELF64 magic, then nothing: the section headers cannot be read; reported, not raised.
    bad = tmp_path / "libtruncated.so"
    bad.write_bytes(b"\x7fELF\x02\x01\x01" + b"\0" * 9)
    out, _ = run_json("fatbin.py", "--cuda-root", no_tool[0], bad, env=no_tool[1])
    assert out["error"] and "could not be read" in out["error"]
    assert out["elf"] == [] and out["ptx"] == []


def test_direct_reader_not_elf(no_tool, tmp_path):
    text = tmp_path / "notes.txt"
    text.write_text("not a library\n")
    out, _ = run_json("fatbin.py", "--cuda-root", no_tool[0], text, env=no_tool[1])
    assert (out["elf"], out["ptx"], out["error"]) == ([], [], None)
