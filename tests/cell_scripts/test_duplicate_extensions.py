"""duplicate_extensions.py: one extension module built twice side by side is a failure that
names both files and the one this Python imports; distinct modules, libraries named lib*.so
and the same module in two folders are not."""
import sys

from conftest import cell_env, run_json


def touch(path):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"\x7fELF")
    return path


def run(tmp_path, *libs, build=None, project=None):
    env = cell_env(OPMATRIX_BUILD=str(build) if build else "", OPMATRIX_PROJECT_DIR=str(project) if project else "")
    out, _ = run_json("duplicate_extensions.py", *libs, env=env, python=sys.executable)
    assert [c["check"] for c in out["checks"]] == ["duplicate_extension"] * len(out["checks"])
    return out["checks"]


def test_two_builds_of_one_module_fail_and_name_the_winner(tmp_path):
    stale = touch(tmp_path / "build" / "pkg" / "_C.cpython-310-x86_64-linux-gnu.so")
    fresh = touch(tmp_path / "build" / "pkg" / "_C.abi3.so")
    checks = run(tmp_path, build=tmp_path / "build")
    assert len(checks) == 1 and checks[0]["status"] == "fail"
    assert stale.name in checks[0]["message"] and fresh.name in checks[0]["message"]
    assert checks[0]["diagnosis"]["kind"] == "duplicate_extension"
    assert str(stale) in checks[0]["diagnosis"]["evidence"]
    assert "imports _C.abi3.so" in checks[0]["message"]  # the running Python is not 3.10


def test_current_python_suffix_wins_over_abi3(tmp_path):
    import importlib.machinery
    mine = importlib.machinery.EXTENSION_SUFFIXES[0]
    touch(tmp_path / "b" / ("_C" + mine))
    touch(tmp_path / "b" / "_C.abi3.so")
    checks = run(tmp_path, build=tmp_path / "b")
    assert checks[0]["status"] == "fail"
    assert ("imports _C" + mine) in checks[0]["message"]


def test_distinct_modules_libraries_and_other_folders_pass(tmp_path):
    touch(tmp_path / "b" / "one" / "_C.abi3.so")
    touch(tmp_path / "b" / "two" / "_C.cpython-311-x86_64-linux-gnu.so")  # another folder: another package
    touch(tmp_path / "b" / "libopmatrix_ops.so")
    touch(tmp_path / "b" / "libopmatrix_ops.so.1")
    lib = touch(tmp_path / "b" / "other.cpython-311-x86_64-linux-gnu.so")
    checks = run(tmp_path, lib, build=tmp_path / "b")
    assert [c["status"] for c in checks] == ["pass"]
    assert "3 extension module(s)" in checks[0]["message"]


def test_project_folder_is_searched_too(tmp_path):
    touch(tmp_path / "src" / "mylib" / "_ext.so")
    touch(tmp_path / "src" / "mylib" / "_ext.cpython-311-x86_64-linux-gnu.so")
    checks = run(tmp_path, project=tmp_path / "src")
    assert checks[0]["status"] == "fail" and "_ext exists 2 times" in checks[0]["message"]


def test_nothing_to_look_at_is_a_skip(tmp_path):
    checks = run(tmp_path)
    assert [c["status"] for c in checks] == ["skip"]
