"""scripts/cell/cross_load.py: each library loaded by load_library.py in a process of its own,
forked from one that imported torch once; the entry says how that process ended (exit code,
signal, timeout) and carries its report."""
import re

import pytest

from conftest import OPS_NAMESPACE, cell_env, run_json

ENTRY_KEYS = {"library", "report", "exit_code", "signal", "timed_out", "stderr"}
CEA = "CompositeExplicitAutograd"


@pytest.fixture(scope="module")
def crossed(torch_info, op_library, c_libs):
    libs = [op_library, c_libs["undef"], c_libs["abort"]]
    out, _ = run_json("cross_load.py", "--namespace", OPS_NAMESPACE, "--ops", "explicit,cpu_only", *libs)
    return libs, out


def test_one_entry_per_library_in_order(crossed):
    libs, out = crossed
    assert list(out) == ["results"]
    assert [e["library"] for e in out["results"]] == libs
    for e in out["results"]:
        assert set(e) == ENTRY_KEYS


def test_loaded_library_carries_the_full_report(crossed):
    _, out = crossed
    e = out["results"][0]
    assert e["exit_code"] == 0 and e["signal"] is None and e["timed_out"] is False
    rep = e["report"]
    assert rep["libraries"][0]["loaded"] is True and rep["namespace"] == OPS_NAMESPACE
    assert rep["ops"] == {"explicit": {"CPU": True, "CUDA": True, "Meta": True, "Autograd": False},
                          "cpu_only": {"CPU": True, "CUDA": False, "Meta": False, "Autograd": False}}
    assert rep["served_by"] == {"explicit": {"CPU": CEA, "CUDA": CEA, "Meta": CEA, "Autograd": None},
                                "cpu_only": {"CPU": "CPU", "CUDA": None, "Meta": None, "Autograd": None}}


def test_undefined_symbols_come_through(crossed):
    _, out = crossed
    e = out["results"][1]
    assert e["exit_code"] == 0 and e["signal"] is None
    lib = e["report"]["libraries"][0]
    assert lib["error_kind"] == "undefined_symbol"
    assert {u["demangled"] for u in lib["undefined"]} == {"opm_missing_c", "opm::gone(int)"}


def test_crash_while_loading_is_the_finding(crossed):
    _, out = crossed
    e = out["results"][2]
    assert e["signal"] == "SIGABRT" and e["exit_code"] is None and e["timed_out"] is False
    # load_library.py's own child died; the report says so, with the signal
    lib = e["report"]["libraries"][0]
    assert lib["loaded"] is False and lib["error_kind"] == "crash" and lib["signal"] == "SIGABRT"


def test_hanging_library_times_out(torch_info, c_libs):
    out, _ = run_json("cross_load.py", "--timeout", "5", c_libs["hang"], timeout=120)
    [e] = out["results"]
    assert e["timed_out"] is True
    assert e["report"] is None and e["exit_code"] is None and e["signal"] is None


# Python's import timing (PYTHONPROFILEIMPORTTIME) writes one line per module to the stderr of
# the process that imports it; torch's own line ends in "| torch".
TORCH_IMPORTED = re.compile(r"^import time:.*\|\s*torch$", re.M)


def test_torch_is_imported_once_for_all_libraries(op_library, c_libs):
    """The libraries' processes are forked from cross_load.py after its `import torch`: the import
    shows once, in cross_load.py's own stderr, and each library still gets its own report."""
    libs = [op_library, c_libs["undef"]]
    out, run = run_json("cross_load.py", "--namespace", OPS_NAMESPACE, "--ops", "explicit,cpu_only", *libs,
                        env=cell_env(PYTHONPROFILEIMPORTTIME="1"))
    assert len(TORCH_IMPORTED.findall(run.stderr)) == 1
    assert [e["library"] for e in out["results"]] == libs
    assert [e["report"]["libraries"][0]["loaded"] for e in out["results"]] == [True, False]


def test_a_torch_that_does_not_import_is_each_librarys_report(tmp_path, op_library, c_libs):
    """Where torch fails to import in the runtime, each library gets a fresh load_library.py,
    whose report says why (a stand-in torch package that raises: this tests cross_load.py's own
    logic)."""
    (tmp_path / "torch").mkdir()
    (tmp_path / "torch" / "__init__.py").write_text("raise ImportError('libtorch_cpu.so: cannot open shared object file')\n")
    libs = [op_library, c_libs["undef"]]
    out, _ = run_json("cross_load.py", *libs, env=cell_env(PYTHONPATH=str(tmp_path)))
    assert [e["library"] for e in out["results"]] == libs
    for e in out["results"]:
        assert e["exit_code"] == 0
        assert e["report"]["error"] == "import torch: ImportError: libtorch_cpu.so: cannot open shared object file"


def test_no_libraries():
    out, _ = run_json("cross_load.py")
    assert out == {"results": []}


def fake_case(folder, name, body):
    """A stand-in for one of a runtime's case binaries (this tests cross_load.py's logic, not the
    cases): writes a gtest JSON report to $GTEST_OUTPUT and exits with `body`'s status."""
    path = folder / name
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(0o755)
    return path


def test_cases_run_on_each_library_that_loads_and_only_on_it(tmp_path, op_library, c_libs):
    seen = tmp_path / "seen"
    report = ('{"testsuites": [{"name": "Nms", "testsuite": [{"name": "Ok"}, {"name": "Bad", '
              '"failures": [{"failure": "file:1\\nkept 3, reference 4"}]}]}]}')
    fake_case(tmp_path, "nms_correctness",
              'echo "$OPMATRIX_OPS_LIBRARY" >> %s\nprintf \'%%s\' \'%s\' > "${GTEST_OUTPUT#json:}"\nexit 1\n'
              % (seen, report))
    fake_case(tmp_path, "other_test", "exit 0\n")  # not a correctness binary: never run
    out, _ = run_json("cross_load.py", "--namespace", OPS_NAMESPACE, "--ops", "explicit,cpu_only",
                      "--cases", str(tmp_path), op_library, c_libs["undef"])
    loaded, undefined = out["results"]
    assert [c["name"] for c in loaded["cases"]] == ["nms_correctness"]
    case = loaded["cases"][0]
    assert case["exit_code"] == 1 and case["tests"] == 2
    assert case["failed"] == ["Nms.Bad: kept 3, reference 4"]
    assert "cases" not in undefined  # it never loaded: nothing to compute with
    assert seen.read_text().split() == [op_library]
