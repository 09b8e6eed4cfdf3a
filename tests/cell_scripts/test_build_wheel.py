"""scripts/cell/build_wheel.py with a tiny pure-Python setuptools project, offline: from a folder
(what the copy leaves out), from an sdist (unpacked once per archive), and sdists that try to
write outside the build folder (refused, nothing written)."""
import io
import os
import subprocess
import tarfile
import zipfile

import pytest

from conftest import CELL_PYTHON, cell_env, make_wheel, run_json, run_script, sdist

SCRIPT = "build_wheel.py"
SETUP = 'from setuptools import setup\nsetup(name="opm-tiny", version="1.0", packages=["opm_tiny"])\n'


@pytest.fixture(scope="module")
def can_build():
    """Building needs setuptools, wheel and pip; refusing an sdist needs none of them."""
    code = "import setuptools, wheel, pip"
    if subprocess.run([CELL_PYTHON, "-c", code], stderr=subprocess.DEVNULL).returncode != 0:
        pytest.skip("%s lacks setuptools, wheel or pip (python3-setuptools, python3-wheel, python3-pip)" % CELL_PYTHON)


def project(folder, value=1):
    (folder / "opm_tiny").mkdir(parents=True, exist_ok=True)
    (folder / "setup.py").write_text(SETUP)
    (folder / "opm_tiny" / "__init__.py").write_text("VALUE = %d\n" % value)
    return folder


def built(source, build):
    out, r = run_json(SCRIPT, source, build)
    assert out["ok"] is True and out["tags"] == ["py3-none-any"], out
    assert (build / "site" / "opm_tiny" / "__init__.py").is_file()
    return out, r


@pytest.mark.usefixtures("can_build")
def test_the_folder_copy_leaves_out_vcs_build_products_and_work_folders(tmp_path):
    src = project(tmp_path / "proj")
    for junk in [".git/HEAD", "build/lib/stale.so", "dist/old.whl", "junk.egg-info/PKG-INFO",
                 "opm_tiny/__pycache__/x.pyc", ".opmatrix/cells/x/build/src/setup.py"]:
        (src / junk).parent.mkdir(parents=True, exist_ok=True)
        (src / junk).write_text("junk\n")
    (src / "opm_tiny" / "build").mkdir()  # deeper down, a folder named build is the project's own
    (src / "opm_tiny" / "build" / "keep.txt").write_text("kept\n")
    build = tmp_path / "b"
    built(src, build)
    copied = {os.path.relpath(os.path.join(r, f), str(build / "src")) for r, _, fs in os.walk(str(build / "src")) for f in fs}
    assert {"setup.py", "opm_tiny/__init__.py", "opm_tiny/build/keep.txt"} <= copied
    left_out = [p for p in copied if p.startswith((".git", "build/lib/stale", "dist", "junk.egg-info", ".opmatrix"))
                or "__pycache__" in p]
    assert left_out == []


@pytest.mark.usefixtures("can_build")
def test_a_build_folder_inside_the_project_is_not_copied_into_itself(tmp_path):
    src = project(tmp_path / "proj")
    build = src / "work" / "b"  # a project at "." with the harness's work folder inside it
    built(src, build)
    assert not (build / "src" / "work").exists()
    built(src, build)  # and again, with the first build's files now inside the project


TINY = {"setup.py": SETUP, "opm_tiny/__init__.py": "VALUE = 1\n", "PKG-INFO": "Name: opm-tiny\nVersion: 1.0\n"}


@pytest.mark.usefixtures("can_build")
@pytest.mark.parametrize("suffix", [".tar.gz", ".zip"])
def test_an_sdist_builds_from_its_top_folder(tmp_path, suffix):
    archive = sdist(tmp_path / ("opm_tiny-1.0" + suffix), TINY, "opm_tiny-1.0")
    build = tmp_path / "b"
    out, _ = built(archive, build)
    assert (build / "src" / "setup.py").read_text() == SETUP  # the top folder's contents are src
    assert (build / "src.sha256").is_file()
    assert out["wheel"].endswith("opm_tiny-1.0-py3-none-any.whl")


@pytest.mark.usefixtures("can_build")
def test_the_same_sdist_is_not_unpacked_again(tmp_path):
    archive = sdist(tmp_path / "opm_tiny-1.0.tar.gz", TINY, "opm_tiny-1.0")
    build = tmp_path / "b"
    built(archive, build)
    (build / "src" / "marker").write_text("from the first build\n")  # stands for setuptools' objects
    _, r = built(archive, build)
    assert (build / "src" / "marker").is_file() and "unpacked already" in r.stderr
    # Another archive (another release) replaces src.
    other = sdist(tmp_path / "opm_tiny-1.1.tar.gz", dict(TINY, **{"opm_tiny/__init__.py": "VALUE = 2\n"}), "opm_tiny-1.0")
    built(other, build)
    assert not (build / "src" / "marker").exists()
    assert (build / "site" / "opm_tiny" / "__init__.py").read_text() == "VALUE = 2\n"


def evil_tar(path, kind):
    with tarfile.open(str(path), "w:gz") as t:
        info = tarfile.TarInfo("opm_tiny-1.0/setup.py")
        info.size = len(SETUP)
        t.addfile(info, io.BytesIO(SETUP.encode()))
        if kind == "dotdot":
            info = tarfile.TarInfo("opm_tiny-1.0/../../evil")
        elif kind == "absolute":
            info = tarfile.TarInfo(str(path.parent / "evil"))
        elif kind == "symlink":
            info = tarfile.TarInfo("opm_tiny-1.0/link")
            info.type, info.linkname = tarfile.SYMTYPE, "../../.."
        elif kind == "hardlink":
            info = tarfile.TarInfo("opm_tiny-1.0/link")
            info.type, info.linkname = tarfile.LNKTYPE, "../evil"
        info.size = 0 if kind in ("symlink", "hardlink") else 5
        t.addfile(info, io.BytesIO(b"evil\n"))
    return path


@pytest.mark.parametrize("kind", ["dotdot", "absolute", "symlink", "hardlink", "zip"])
def test_an_sdist_reaching_outside_is_refused(tmp_path, kind):
    if kind == "zip":
        archive = tmp_path / "a" / "opm_tiny-1.0.zip"
        archive.parent.mkdir()
        with zipfile.ZipFile(str(archive), "w") as z:
            z.writestr("opm_tiny-1.0/setup.py", SETUP)
            z.writestr("opm_tiny-1.0/../../evil", "evil\n")
    else:
        (tmp_path / "a").mkdir()
        archive = evil_tar(tmp_path / "a" / "opm_tiny-1.0.tar.gz", kind)
    build = tmp_path / "a" / "b"
    r = run_script(SCRIPT, archive, build)
    assert r.returncode == 1 and r.json and r.json["ok"] is False, (r.stdout, r.stderr)
    assert r.json["error"] == "unsafe_archive" and "refused" in r.json["message"]
    assert "Traceback" not in r.stderr
    assert not any("evil" in f for _, _, fs in os.walk(str(tmp_path)) for f in fs)
    assert not (build / "src").exists() and os.listdir(str(build)) == []  # no temporary folder left


def test_neither_folder_nor_sdist(tmp_path):
    (tmp_path / "notes.txt").write_text("x")
    r = run_script(SCRIPT, tmp_path / "notes.txt", tmp_path / "b")
    assert r.returncode == 1 and r.json["error"] == "bad_source"


@pytest.mark.usefixtures("can_build")
def test_a_build_backend_the_requirements_step_installed_is_the_one_the_build_uses(tmp_path):
    # A backend the cell's Python lacks (as scikit-build-core): found in BUILD/build-deps, where
    # the requirements step puts the build requirements, and nowhere else.
    src = project(tmp_path / "proj")
    (src / "pyproject.toml").write_text('[build-system]\nrequires = ["opm-backend"]\nbuild-backend = "opm_backend"\n')
    build = tmp_path / "b"
    r = run_script(SCRIPT, src, build)
    assert r.returncode != 0 and "No module named 'opm_backend'" in r.stderr, r.stderr[-1500:]
    (build / "build-deps").mkdir()
    (build / "build-deps" / "opm_backend.py").write_text("from setuptools.build_meta import *  # noqa\n")
    built(src, build)


CELL_SCRIPTS = __import__("pathlib").Path(__file__).resolve().parents[2] / "scripts" / "cell"


def why_no_extension(tmp_path, setup_py):
    """build_wheel.why_no_extension() of a project whose setup.py is SETUP_PY."""
    import sys
    sys.path.insert(0, str(CELL_SCRIPTS))
    import build_wheel
    (tmp_path / "setup.py").write_text(setup_py)
    return build_wheel.why_no_extension(str(tmp_path))


def test_the_cuda_condition_that_decides_the_extension_is_the_reason(tmp_path):
    # cudagated-style: the CUDA gate assigns ext_modules, its else-branch says so in words.
    why = why_no_extension(tmp_path, (
        "import torch\next_modules = []\nif torch.cuda.is_available():\n"
        "    ext_modules = [CUDAExtension('x._C', ['a.cu'])]\nelse:\n    print('Compiling without CUDA')\n"))
    assert why == {"where": "setup.py:3", "line": "if torch.cuda.is_available():", "words": "Compiling without CUDA",
                   "how": "builds it only there"}


def test_a_cuda_condition_deciding_something_else_is_not_the_reason(tmp_path):
    # DeepSpeed 0.19.8: a bf16 probe under torch.cuda.is_available() comes first, and a warning
    # mentioning "cpu only" elsewhere; its ops are added only where DS_BUILD_OPS asks (off by
    # default: compiled at first use). The reason is the condition its extensions are added under.
    why = why_no_extension(tmp_path, (
        "import os, torch\n"
        "print('[WARNING] Torch did not find cuda available, if running with cpu only you can ignore this')\n"
        "ext_modules = []\n"
        "BUILD_OP_DEFAULT = int(os.environ.get('DS_BUILD_OPS', 0))\n"
        "for op_name, builder in ALL_OPS.items():\n"
        "    if op_enabled(op_name) and builder.is_compatible():\n"
        "        ext_modules.append(builder.builder())\n"
        "if hasattr(torch.cuda, 'is_bf16_supported') and torch.cuda.is_available():\n"
        "    bf16_support = torch.cuda.is_bf16_supported()\n"))
    assert why == {"where": "setup.py:6", "line": "if op_enabled(op_name) and builder.is_compatible():", "words": None,
                   "how": "builds it only there"}


def test_an_environment_switch_that_decides_the_extension_is_named(tmp_path):
    # basicsr 1.4.2: its ops are built only where BASICSR_EXT=True (else compiled at first use where
    # BASICSR_JIT=True): `pip install basicsr` builds none, by design, in any runtime.
    why = why_no_extension(tmp_path, (
        "import os\n\nif __name__ == '__main__':\n    cuda_ext = os.getenv('BASICSR_EXT')  # whether compile cuda ext\n"
        "    if cuda_ext == 'True':\n        ext_modules = [\n            make_cuda_ext(name='deform_conv_ext'),\n"
        "        ]\n    else:\n        ext_modules = []\n    setup(name='basicsr', ext_modules=ext_modules)\n"))
    assert why == {"where": "setup.py:5", "line": "if cuda_ext == 'True':", "words": None, "switch": "BASICSR_EXT",
                   "how": "builds it only where the environment variable BASICSR_EXT asks for it, which a plain "
                          "`pip install` leaves unset"}
    # Read in the condition itself.
    why = why_no_extension(tmp_path, "import os\nif os.environ.get('OPM_EXT') == '1':\n"
                                     "    ext_modules.append(CppExtension('x', ['x.cpp']))\n")
    assert why["switch"] == "OPM_EXT" and why["line"] == "if os.environ.get('OPM_EXT') == '1':"
    # A condition on no environment variable names no switch.
    why = why_no_extension(tmp_path, "import sys\nif sys.platform == 'linux':\n    ext_modules = [CppExtension('x', ['x.cpp'])]\n")
    assert why["line"] == "if sys.platform == 'linux':" and "switch" not in why


def test_a_build_failure_the_setup_py_swallows_is_the_reason(tmp_path):
    # sam2 1.1.0: SAM2_BUILD_CUDA is on by default, so `if not BUILD_CUDA: return []` is not why;
    # its CUDA build fails without a toolkit and an `except` empties the extensions, printing its words.
    why = why_no_extension(tmp_path, (
        "import os\nBUILD_CUDA = os.getenv('SAM2_BUILD_CUDA', '1') == '1'\n"
        "MSG = (\n    '{}'\n    'Failed to build the SAM 2 CUDA extension due to the error above. '\n)\n"
        "def get_extensions():\n    if not BUILD_CUDA:\n        return []\n    try:\n"
        "        ext_modules = [CUDAExtension('sam2._C', ['a.cu'])]\n    except Exception as e:\n"
        "        print(MSG.format(e))\n        ext_modules = []\n    return ext_modules\n"))
    assert why["where"] == "setup.py:12" and why["line"] == "except Exception as e:", why
    assert why["how"] == "drops it where its build fails"
    assert why["words"].startswith("Failed to build the SAM 2 CUDA extension"), why


@pytest.mark.usefixtures("can_build")
def test_a_legacy_setup_requires_is_fetched_from_the_files_of_the_projects_requirements(tmp_path):
    """horovod 0.28.1's setup.py asks for its install requirements as setup_requires when it builds,
    and setuptools fetches them with `pip wheel` (from PyPI for a user): the offline build finds them
    among the files the requirements step installed the project's requirements from."""
    src = project(tmp_path / "proj")
    (src / "setup.py").write_text('from setuptools import setup\nsetup(name="opm-tiny", version="1.0", '
                                  'packages=["opm_tiny"], setup_requires=["opm-setup-req>=0.1"])\n')
    build = tmp_path / "b"
    offline = cell_env(PIP_NO_INDEX="1")
    r = run_script(SCRIPT, src, build, env=offline)
    assert r.returncode != 0 and "opm-setup-req" in r.stderr, r.stderr[-1500:]
    (tmp_path / "files").mkdir()
    wheel = make_wheel(tmp_path / "files", [], name="opm_setup_req", version="0.2")
    (build / "deps-files").mkdir()
    os.symlink(str(wheel), str(build / "deps-files" / wheel.name))
    out, r = run_json(SCRIPT, src, build, env=offline)
    assert out["ok"] is True, out
