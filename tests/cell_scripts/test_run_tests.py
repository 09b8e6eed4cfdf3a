"""scripts/cell/run_tests.py on a small library made here: its command runs from a copy of its
folder without the package the installed wheel provides, so the installed one is imported; a
pytest suite's JUnit XML is read back test by test; without --junit the exit status is the result."""
import subprocess

import pytest

from conftest import CELL_PYTHON, cell_env, run_json, run_script

SCRIPT = "run_tests.py"


@pytest.fixture(scope="module", autouse=True)
def has_pytest():
    if subprocess.run([CELL_PYTHON, "-c", "import pytest"], stderr=subprocess.DEVNULL).returncode != 0:
        pytest.skip("%s has no pytest (python3-pytest)" % CELL_PYTHON)


@pytest.fixture
def library(tmp_path):
    """A source folder with its package at the root (no built part) and a site with the
    installed package (its built part stands in as a module the sources lack)."""
    src, site = tmp_path / "src", tmp_path / "site"
    (src / "mylib").mkdir(parents=True)
    (src / "mylib" / "__init__.py").write_text("from ._C import double\n")  # _C only in the installed one
    (src / "test").mkdir()
    (src / "conftest.py").write_text("import pytest\n\n@pytest.fixture\ndef two():\n    return 2\n")
    (src / "test" / "test_double.py").write_text(
        "import pytest\nimport mylib\n\n"
        "def test_double(two):\n    assert mylib.double(two) == 4\n\n"
        "def test_broken(two):\n    assert mylib.double(two) == 5, 'two doubled'\n\n"
        "@pytest.mark.skip(reason='needs CUDA')\ndef test_on_gpu():\n    pass\n\n"
        "class TestWhere:\n    def test_installed(self):\n        assert mylib.__file__.startswith(%r)\n" % str(site))
    (site / "mylib").mkdir(parents=True)
    (site / "mylib" / "__init__.py").write_text("from ._C import double\n")
    (site / "mylib" / "_C.py").write_text("def double(x):\n    return 2 * x\n")
    (site / "mylib-0.1.dist-info").mkdir()
    return src, site, tmp_path


def test_the_installed_library_is_tested_test_by_test(library):
    src, site, tmp = library
    out, r = run_json(SCRIPT, "--source", src, "--tree", tmp / "tree", "--site", site, "--junit", tmp / "junit.xml",
                      "--", CELL_PYTHON, "-m", "pytest", "-q", "test", env=cell_env(PYTHONPATH=str(site)))
    assert out["junit"] is True, r.stderr[-2000:]
    assert out["exit_code"] == 1
    assert out["counts"] == {"passed": 2, "failed": 1, "error": 0, "skipped": 1, "not_collected": 0}, out
    by_id = {t["id"]: t for t in out["tests"]}
    assert by_id["test/test_double.py::test_broken"]["outcome"] == "failed"
    assert "two doubled" in by_id["test/test_double.py::test_broken"]["message"]
    assert by_id["test/test_double.py::test_on_gpu"]["message"] == "needs CUDA"
    assert by_id["test/test_double.py::TestWhere::test_installed"]["outcome"] == "passed"
    assert "mylib left out" in r.stderr
    assert (src / "mylib").is_dir(), "the source folder itself is never touched"


def test_from_the_source_folder_itself_the_same_suite_breaks(library):
    """Why the copy: run from the sources, Python finds the package without its built part."""
    src, site, tmp = library
    proc = subprocess.run([CELL_PYTHON, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test"], cwd=str(src),
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True,
                          env=cell_env(PYTHONPATH=str(site), PYTHONDONTWRITEBYTECODE="1"))
    assert proc.returncode != 0
    assert "_C" in proc.stdout


def test_without_junit_the_commands_exit_status_is_the_result(library):
    src, site, tmp = library
    r = run_script(SCRIPT, "--source", src, "--tree", tmp / "tree", "--site", site, "--", CELL_PYTHON, "-c",
                   "import os, sys; sys.exit(3 if os.path.isfile('conftest.py') and not os.path.exists('mylib') else 0)")
    assert r.returncode == 3, r.stderr


def test_a_command_a_signal_kills_exits_as_a_shell_would(library):
    # 128+N, which the harness reads as a crash with its signal (the faults test's segfaulting smoke).
    src, site, tmp = library
    r = run_script(SCRIPT, "--source", src, "--tree", tmp / "tree", "--site", site, "--", CELL_PYTHON, "-c",
                   "import os, signal; os.kill(os.getpid(), signal.SIGSEGV)")
    assert r.returncode == 128 + 11, r.stderr


def test_a_command_that_writes_no_junit_is_reported_so(library):
    src, site, tmp = library
    out, _ = run_json(SCRIPT, "--source", src, "--tree", tmp / "tree", "--site", site, "--junit", tmp / "j.xml",
                      "--", CELL_PYTHON, "-c", "import sys; sys.exit(2)")
    assert out["junit"] is False and out["exit_code"] == 2 and out["tests"] == []


def test_a_test_file_that_cannot_be_imported_is_a_collection_error_and_the_rest_still_runs(tmp_path):
    """A real pytest on a tiny suite: one file imports a module the cell lacks, one a helper of
    the suite's own that is missing, one raises at import; the passing test still runs and
    counts, and each file that could not be collected says why, per file."""
    src = tmp_path / "src"
    (src / "tests" / "sub").mkdir(parents=True)
    (src / "tests" / "test_ok.py").write_text("def test_one():\n    assert True\n")
    (src / "tests" / "test_cv.py").write_text("import opmatrix_surely_missing_cv2\n\ndef test_x():\n    pass\n")
    (src / "tests" / "sub" / "test_parts.py").write_text(
        "from opmatrix_surely_missing_parts.helper import x\n\ndef test_y():\n    pass\n")
    (src / "tests" / "test_boom.py").write_text("raise RuntimeError('boom at import')\n")
    (src / "tests" / "helpers").mkdir()
    (src / "tests" / "test_helpers.py").write_text("from helpers.nothing import y\n\ndef test_z():\n    pass\n")
    out, r = run_json(SCRIPT, "--source", src, "--tree", tmp_path / "tree", "--junit", tmp_path / "junit.xml",
                      "--", CELL_PYTHON, "-m", "pytest", "-q", "tests", env=cell_env())
    assert out["junit"] is True, r.stderr[-2000:]
    assert "--continue-on-collection-errors" in out["argv"]
    assert out["counts"]["passed"] == 1 and out["counts"]["not_collected"] == 4, out
    assert [t["id"] for t in out["tests"]] == ["tests/test_ok.py::test_one"]
    by_file = {e["file"]: e for e in out["collection_errors"]}
    assert sorted(by_file) == ["tests/sub/test_parts.py", "tests/test_boom.py", "tests/test_cv.py",
                               "tests/test_helpers.py"], out["collection_errors"]
    cv = by_file["tests/test_cv.py"]
    assert (cv["module"], cv["own"]) == ("opmatrix_surely_missing_cv2", False)
    assert "No module named 'opmatrix_surely_missing_cv2'" in cv["message"]
    assert by_file["tests/sub/test_parts.py"]["module"] == "opmatrix_surely_missing_parts"
    assert by_file["tests/test_boom.py"]["module"] == "" and "boom at import" in by_file["tests/test_boom.py"]["message"]
    # helpers/ lies beside the test file: the suite's own module, no distribution the cell lacks
    assert (by_file["tests/test_helpers.py"]["module"], by_file["tests/test_helpers.py"]["own"]) == ("helpers.nothing", True)


def test_only_pytest_gets_pytests_options(library):
    src, site, tmp = library
    out, _ = run_json(SCRIPT, "--source", src, "--tree", tmp / "tree", "--site", site, "--junit", tmp / "j.xml",
                      "--", CELL_PYTHON, "-c", "import sys; sys.exit(0)")
    assert "--continue-on-collection-errors" not in out["argv"] and out["collection_errors"] == []
