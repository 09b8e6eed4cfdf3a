"""scripts/cell/pip-wheelhouse-install.sh: argument errors, and the whole download-then-install
path offline, with a wheel made here (no index: PIP_NO_INDEX=1)."""
import base64
import hashlib
import os
import re
import subprocess
import zipfile

import pytest

from conftest import CELL, cell_env, run_shell

SCRIPT = "pip-wheelhouse-install.sh"


@pytest.fixture(scope="module")
def pip_python():
    for py in ("/usr/bin/python3", "python3"):
        if subprocess.run([py, "-m", "pip", "--version"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode == 0:
            return py
    pytest.skip("no Python with pip (install python3-pip)")


@pytest.fixture(scope="module")
def wheel(tmp_path_factory):
    """opm_tiny-1.0-py3-none-any.whl, a valid pure-Python wheel."""
    d = tmp_path_factory.mktemp("wheel")
    files = {"opm_tiny/__init__.py": "VALUE = 42\n",
             "opm_tiny-1.0.dist-info/METADATA": "Metadata-Version: 2.1\nName: opm-tiny\nVersion: 1.0\n",
             "opm_tiny-1.0.dist-info/WHEEL": "Wheel-Version: 1.0\nGenerator: opmatrix-tests\n"
                                             "Root-Is-Purelib: true\nTag: py3-none-any\n"}
    record = []
    for path, text in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(text.encode()).digest()).rstrip(b"=").decode()
        record.append("%s,sha256=%s,%d" % (path, digest, len(text.encode())))
    record.append("opm_tiny-1.0.dist-info/RECORD,,")
    path = d / "opm_tiny-1.0-py3-none-any.whl"
    with zipfile.ZipFile(str(path), "w") as z:
        for p, text in files.items():
            z.writestr(p, text)
        z.writestr("opm_tiny-1.0.dist-info/RECORD", "\n".join(record) + "\n")
    return str(path)


def offline(**extra):
    return cell_env(PIP_NO_INDEX="1", PIP_FIND_LINKS=None, PIP_CONFIG_FILE=os.devnull, **extra)


@pytest.mark.parametrize("args, message", [
    ([], "usage: pip-wheelhouse-install.sh PYTHON"),
    (["python3"], "usage: pip-wheelhouse-install.sh PYTHON"),
    (["python3", "--no-deps"], "no requirements"),
    (["python3", "--target", "/tmp/x", "--no-deps"], "no requirements"),
])
def test_argument_errors(args, message):
    r = run_shell(SCRIPT, *args)
    assert r.returncode == 1
    assert r.stderr.strip().startswith("pip-wheelhouse-install: " + message)


def test_download_then_install_then_reuse(pip_python, wheel, tmp_path):
    wh = tmp_path / "wheelhouse"
    env = offline(OPMATRIX_WHEELHOUSE=str(wh))
    r = run_shell(SCRIPT, pip_python, "--target", tmp_path / "t1", "--no-deps", wheel, env=env)
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "t1" / "opm_tiny" / "__init__.py").read_text() == "VALUE = 42\n"
    assert os.listdir(str(wh)) == [os.path.basename(wheel)]
    assert re.search(r"pip-wheelhouse-install: 1 files, \d+ MiB downloaded in \d+ s \(wheelhouse %s\)" % re.escape(str(wh)),
                     r.stderr), r.stderr
    # Second time: the wheelhouse's copy is reused ("File was already downloaded") and installed.
    r = run_shell(SCRIPT, pip_python, "--target", tmp_path / "t2", wheel, env=env)
    assert r.returncode == 0, r.stderr
    assert "File was already downloaded" in r.stdout
    assert (tmp_path / "t2" / "opm_tiny" / "__init__.py").is_file()
    assert os.listdir(str(wh)) == [os.path.basename(wheel)]


def temp_wheelhouse_applies():
    for mount in ("/wheelhouse", "/root/.cache/pip"):
        if subprocess.run(["mountpoint", "-q", mount], stderr=subprocess.DEVNULL).returncode == 0:
            return False
    return True


def test_temporary_wheelhouse_removed(pip_python, wheel, tmp_path):
    if not temp_wheelhouse_applies():
        pytest.skip("a wheelhouse volume is mounted here: no temporary wheelhouse")
    tmpdir = tmp_path / "tmpdir"
    tmpdir.mkdir()
    r = run_shell(SCRIPT, pip_python, "--target", tmp_path / "t", wheel, env=offline(OPMATRIX_WHEELHOUSE=None,
                                                                                         TMPDIR=str(tmpdir)))
    assert r.returncode == 0, r.stderr
    assert "(wheelhouse %s/" % tmpdir in r.stderr
    assert (tmp_path / "t" / "opm_tiny").is_dir()
    assert os.listdir(str(tmpdir)) == []


def test_failed_download_fails_and_cleans_up(pip_python, tmp_path):
    if not temp_wheelhouse_applies():
        pytest.skip("a wheelhouse volume is mounted here: no temporary wheelhouse")
    tmpdir = tmp_path / "tmpdir"
    tmpdir.mkdir()
    r = run_shell(SCRIPT, pip_python, "--target", tmp_path / "t", str(tmp_path / "opm_absent-1.0-py3-none-any.whl"),
                  env=offline(OPMATRIX_WHEELHOUSE=None, TMPDIR=str(tmpdir)))
    assert r.returncode != 0
    assert not (tmp_path / "t").exists()
    assert os.listdir(str(tmpdir)) == []  # no temporary wheelhouse or log left behind


def test_pins_lists_the_resolved_files_and_installs_nothing(pip_python, wheel, tmp_path):
    wh = tmp_path / "wheelhouse"
    pins = tmp_path / "resolved"
    pins.write_text("/already/listed.whl\n")  # appended to, as the pypi image's two resolutions need
    r = run_shell(SCRIPT, pip_python, "--pins", pins, "--target", tmp_path / "t", wheel,
                  env=offline(OPMATRIX_WHEELHOUSE=str(wh)))
    assert r.returncode == 0, r.stderr
    assert pins.read_text().splitlines() == ["/already/listed.whl", str(wh / os.path.basename(wheel))]
    assert not (tmp_path / "t").exists()


def test_install_layer_installs_exactly_the_pins(pip_python, wheel, tmp_path):
    wh = tmp_path / "wheelhouse"
    wh.mkdir()
    # The wheelhouse already holds the file (what the pins stage left there): nothing is fetched.
    (wh / os.path.basename(wheel)).write_bytes(open(wheel, "rb").read())
    venv = tmp_path / "venv"
    subprocess.run([pip_python, "-m", "venv", "--without-pip", "--system-site-packages", str(venv)], check=True)
    pinfile = tmp_path / "1-layer.txt"
    pinfile.write_text("opm-tiny==1.0\n")
    env = offline(OPMATRIX_WHEELHOUSE=str(wh), PATH=str(CELL) + os.pathsep + os.environ.get("PATH", ""))
    env["PIP_FIND_LINKS"] = str(wh)  # no index here: the wheelhouse is where pip finds it
    r = run_shell("pip-install-layer.sh", venv / "bin" / "python", pinfile, env=env)
    assert r.returncode == 0, r.stderr
    assert "File was already downloaded" in r.stdout
    listed = subprocess.run([str(venv / "bin" / "python"), "-c", "import opm_tiny; print(opm_tiny.__file__)"],
                            stdout=subprocess.PIPE, universal_newlines=True)
    assert listed.stdout.startswith(str(venv)), listed.stdout


def test_install_layer_with_empty_pins_does_nothing(tmp_path):
    pinfile = tmp_path / "4-cusparselt.txt"
    pinfile.write_text("")
    r = run_shell("pip-install-layer.sh", "/nonexistent/python", pinfile)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "pip-install-layer: 4-cusparselt.txt: nothing to install"
