"""scripts/cell/python.sh: runs $OPMATRIX_PYTHON, else the python3 on PATH, with the arguments
unchanged, by exec (the harness's signals and timeouts reach Python itself)."""
import json
import os
import subprocess

import pytest

from conftest import CELL, cell_env

SCRIPT = str(CELL / "python.sh")


def fake_python(tmp_path, name="python3"):
    bindir = tmp_path / "bin"
    bindir.mkdir(exist_ok=True)
    f = bindir / name
    f.write_text('#!/bin/sh\necho "fake %s: $#: $*"\n' % name)
    f.chmod(0o755)
    return str(bindir)


def run(args, env):
    return subprocess.run([SCRIPT] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          universal_newlines=True, env=env, timeout=60)


@pytest.fixture(scope="module")
def real_python():
    for p in ("/usr/bin/python3", "/bin/python3"):
        if os.access(p, os.X_OK):
            return p
    pytest.skip("no /usr/bin/python3")


def test_opmatrix_python_wins(tmp_path, real_python):
    env = cell_env(OPMATRIX_PYTHON=real_python, PATH=fake_python(tmp_path) + ":/usr/bin:/bin")
    r = run(["-c", "import sys; print(sys.executable)"], env)
    assert r.returncode == 0 and r.stdout.strip() == real_python


@pytest.mark.parametrize("value", [None, ""])
def test_python3_on_path_otherwise(tmp_path, value):
    env = cell_env(OPMATRIX_PYTHON=value, PATH=fake_python(tmp_path) + ":/usr/bin:/bin")
    r = run(["-c", "x"], env)
    assert r.returncode == 0 and r.stdout.strip() == "fake python3: 2: -c x"


def test_arguments_unchanged(real_python):
    args = ["a b", "", "'q'", '"dq"', "$HOME", "*", "--flag=1"]
    r = run(["-c", "import json, sys; print(json.dumps(sys.argv[1:]))"] + args, cell_env(OPMATRIX_PYTHON=real_python))
    assert json.loads(r.stdout) == args


def test_exit_status_passes_through(real_python):
    assert run(["-c", "import sys; sys.exit(7)"], cell_env(OPMATRIX_PYTHON=real_python)).returncode == 7


def test_exec_replaces_the_shell(real_python):
    p = subprocess.Popen([SCRIPT, "-c", "import os; print(os.getpid())"], stdout=subprocess.PIPE,
                         universal_newlines=True, env=cell_env(OPMATRIX_PYTHON=real_python))
    out, _ = p.communicate(timeout=60)
    assert int(out) == p.pid


def test_missing_interpreter_fails(tmp_path):
    r = run(["-c", "x"], cell_env(OPMATRIX_PYTHON=str(tmp_path / "no-python")))
    assert r.returncode == 127 and "no-python" in r.stderr
