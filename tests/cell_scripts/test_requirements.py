"""scripts/cell/requirements.py: a project's own requirements as pip would bring them, less the
torch family the cell judges; what the cell has already needs nothing fetched; a requirement
the index cannot give is refused in words. No network: pip is kept off any index here."""
import json
import os
import subprocess

import pytest

from conftest import CELL_PYTHON, cell_env, make_wheel, run_script, sdist

SCRIPT = "requirements.py"


@pytest.fixture(scope="module", autouse=True)
def has_pip_and_numpy():
    if subprocess.run([CELL_PYTHON, "-c", "import pip, numpy"], stderr=subprocess.DEVNULL).returncode != 0:
        pytest.skip("%s has no pip or numpy (python3-pip, python3-numpy)" % CELL_PYTHON)




def resolve(tmp_path, wheel, *extra):
    return run_script(SCRIPT, "resolve", "--kind", "wheel", "--source", wheel, "--build", tmp_path / "build",
                      "--cache", tmp_path / "cache", *extra, env=cell_env(PIP_NO_INDEX="1"))


def test_the_torch_family_is_left_out_and_what_the_cell_has_needs_nothing(tmp_path):
    wheel = make_wheel(tmp_path, ["torch>=2.0", "torchvision", "numpy",
                                  "pywin32; sys_platform == 'win32'", "hypothesis; extra == 'docs'"])
    r = resolve(tmp_path, wheel)
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.json["requirements"] == ["numpy"]
    assert [x["requirement"] for x in r.json["left_out"]] == ["torch>=2.0", "torchvision"]
    assert r.json["install"] == []
    assert r.json["download_bytes"] == 0


def test_a_torch_family_distribution_the_cell_lacks_is_pips_to_add():
    # liger-kernel's triton beside Debian's torch (no triton there); flashinfer's nvidia-ml-py
    # (its pynvml): a user's pip adds them, so the cell does; what the cell has stays its own.
    import sys
    from conftest import CELL
    sys.path.insert(0, str(CELL))
    import requirements
    keep, left_out = requirements.wanted(["torch>=2.1", "triton>=2.3.1", "nvidia-ml-py", "numpy"], False, [],
                                         installed={"torch"})
    assert keep == ["triton>=2.3.1", "nvidia-ml-py", "numpy"]
    assert [x["requirement"] for x in left_out] == ["torch>=2.1"]


def test_what_is_downloaded_is_counted_for_the_dry_run(tmp_path):
    # A wheel's requirement from the index (here a folder): its file's bytes, also when cached.
    wheelhouse = tmp_path / "wheelhouse"
    wheelhouse.mkdir()
    needed = make_wheel(wheelhouse, [])
    project = tmp_path / "project"
    project.mkdir()
    wheel = make_wheel(project, ["mylib>=0.1"])
    for cached in (False, True):
        r = run_script(SCRIPT, "resolve", "--kind", "wheel", "--source", wheel, "--build", tmp_path / "build",
                       "--cache", tmp_path / "cache", env=cell_env(PIP_NO_INDEX="1", PIP_FIND_LINKS=str(wheelhouse)))
        assert r.returncode == 0, r.stderr[-2000:]
        assert r.json["cached"] is cached
        assert r.json["download_bytes"] == needed.stat().st_size > 0


def test_requirement_sets_share_one_download_of_a_file(tmp_path):
    # Two projects (two requirement sets, two keys) that both need mylib: one file in the shared
    # folder, fetched once, and each set's resolved.json points at it.
    wheelhouse = tmp_path / "wheelhouse"
    wheelhouse.mkdir()
    make_wheel(wheelhouse, [])
    env = cell_env(PIP_NO_INDEX="1", PIP_FIND_LINKS=str(wheelhouse))
    resolved = []
    for extra in ((), ("--require", "numpy")):
        project = tmp_path / ("project%d" % len(resolved))
        project.mkdir()
        r = run_script(SCRIPT, "resolve", "--kind", "wheel", "--source", make_wheel(project, ["mylib>=0.1"]),
                       "--build", tmp_path / "build", "--cache", tmp_path / "cache", *extra, env=env)
        assert r.returncode == 0, r.stderr[-2000:]
        resolved.append(r.json["resolved"])
    assert len(set(resolved)) == 2, "two requirement sets, two keys"
    assert sorted(p.name for p in (tmp_path / "cache" / "files").iterdir()) == ["mylib-0.1-py3-none-any.whl"]
    for path in resolved:
        kept = json.loads(open(path).read())
        mylib = [i for i in kept["install"] if i["name"] == "mylib"][0]
        assert os.path.realpath(os.path.join(os.path.dirname(path), mylib["file"])) == \
            str((tmp_path / "cache" / "files" / "mylib-0.1-py3-none-any.whl").resolve())


def test_a_requirement_the_index_cannot_give_is_named(tmp_path):
    wheel = make_wheel(tmp_path, ["opmatrix-no-such-package-zz>=1"])
    r = resolve(tmp_path, wheel, "--tests", "--require", "expecttest")
    assert r.returncode == 1
    assert r.json["error"] == "unresolvable", r.json
    assert "cannot be had for the cell's Python" in r.json["message"]
    assert r.json["python"].count(".") == 1


def test_a_test_extras_requirement_is_left_out_without_tests(tmp_path):
    r = run_script(SCRIPT, "resolve", "--kind", "cmake", "--source", tmp_path, "--build", tmp_path / "b",
                   "--cache", tmp_path / "c", "--require", "opmatrix-zz; extra == 'test'")
    assert r.returncode == 0 and r.json["requirements"] == [], r.stdout


def test_what_an_earlier_run_installed_goes_when_nothing_is_needed(tmp_path):
    stale = tmp_path / "build" / "deps" / "scipy"
    stale.mkdir(parents=True)
    (tmp_path / "build" / "deps-files").mkdir()
    r = resolve(tmp_path, make_wheel(tmp_path, ["torch"]))
    assert r.returncode == 0 and r.json["requirements"] == [], r.stdout
    assert not stale.exists() and not (tmp_path / "build" / "deps-files").exists()


def test_a_requirements_shared_libraries_for_the_environments_lib_folder_are_kept(tmp_path):
    # tbb's wheel puts libtbb.so.12 in its data scheme (<venv>/lib), where fairseq2n loads it from;
    # `pip install --target` drops that folder, so such wheels go again into BUILD/deps-data.
    folder = tmp_path / "cache" / "set"
    folder.mkdir(parents=True)
    make_wheel(folder, [], data={"lib/libmydata.so.12": b"\x7fELF stand-in\n", "share/doc/x.txt": b"x",
                                 "lib/mydata/libfabric.so.1": b"\x7fELF its own\n"})
    (folder / "resolved.json").write_text(json.dumps(
        {"install": [{"name": "mylib", "version": "0.1", "file": "mylib-0.1-py3-none-any.whl"}]}))
    build = tmp_path / "build"
    r = run_script(SCRIPT, "install", "--resolved", folder / "resolved.json", "--build", build,
                   env=cell_env(PIP_NO_INDEX="1"))
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.json["data_libraries"] == ["libmydata.so.12", "mydata/libfabric.so.1"]
    assert (build / "deps-data" / "lib" / "libmydata.so.12").is_file()
    # In its folder: mpich's libmpi.so.12 finds its own libfabric.so.1 through RUNPATH $ORIGIN/mpich.
    assert (build / "deps-data" / "lib" / "mydata" / "libfabric.so.1").is_file()
    assert (build / "deps" / "mylib" / "__init__.py").is_file()
    assert not (build / "deps" / "lib").exists(), "pip --target keeps no lib folder: why deps-data exists"
    # The files it was installed from, for the pip a legacy setup.py runs while it builds.
    assert os.path.realpath(str(build / "deps-files" / "mylib-0.1-py3-none-any.whl")) == \
        os.path.realpath(str(folder / "mylib-0.1-py3-none-any.whl"))
    # Its metadata finds the file where it is (deepmd-kit locates mpich's libmpi.so.12 so, then
    # loads it): pip --target recorded it at "../libmydata.so.12", a file that is nowhere.
    r = subprocess.run([CELL_PYTHON, "-c", "from importlib import metadata\n"
                        "p = [f for f in metadata.files('mylib') if f.name == 'libmydata.so.12'][0]\n"
                        "print(open(p.locate(), 'rb').read().decode().strip())"],
                       env=cell_env(PYTHONPATH=str(build / "deps")), capture_output=True, text=True)
    assert r.returncode == 0 and r.stdout.strip() == "\x7fELF stand-in", r.stderr[-2000:]


def test_the_extra_that_holds_the_torch_side_is_installed_with_it(tmp_path):
    # deepmd-kit 3.2.0 requires torch only under its [torch] extra (beside mpich, which its torch
    # side loads): its torch side's users install deepmd-kit[torch], so the cell does.
    wheel = make_wheel(tmp_path, ["numpy", "torch==2.11.0; extra == 'torch'", "numpy>=1; extra == 'torch'",
                                  "hypothesis; extra == 'docs'", "torch; extra == 'adapt'"])
    r = resolve(tmp_path, wheel)
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.json["torch_extra"] == "torch"
    assert r.json["requirements"] == ["numpy", "numpy>=1"]
    assert [x["requirement"] for x in r.json["left_out"]] == ["torch==2.11.0; extra == 'torch'"]
    # Torch required without an extra: no extra is added.
    r = resolve(tmp_path, make_wheel(tmp_path, ["torch", "hypothesis; extra == 'torch'"]))
    assert r.returncode == 0 and "torch_extra" not in r.json and r.json["requirements"] == [], r.stdout


def make_project(folder, build_requires):
    """A setup.py project whose pyproject.toml declares BUILD_REQUIRES as its build requirements."""
    folder.mkdir()
    (folder / "setup.py").write_text("from setuptools import setup\nsetup(name='proj', version='0.1', py_modules=[])\n")
    (folder / "pyproject.toml").write_text(
        "[build-system]\nrequires = [%s]\nbuild-backend = \"setuptools.build_meta\"\n" %
        ", ".join('"%s"' % r for r in build_requires))
    return folder


def test_build_requirements_the_cell_lacks_are_installed_for_the_build_and_torch_is_not(tmp_path):
    # A user's isolated build would have had them (scikit-build-core, pybind11, ninja, ...).
    wheelhouse = tmp_path / "wheelhouse"
    wheelhouse.mkdir()
    make_wheel(wheelhouse, [])
    project = make_project(tmp_path / "proj", ["setuptools", "torch>=2", "mylib>=0.1"])
    r = run_script(SCRIPT, "resolve", "--kind", "setuptools", "--source", project, "--build", tmp_path / "build",
                   "--cache", tmp_path / "cache", env=cell_env(PIP_NO_INDEX="1", PIP_FIND_LINKS=str(wheelhouse)))
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.json["build_requires"] == ["mylib==0.1"], r.json
    assert r.json["download_bytes"] == (wheelhouse / "mylib-0.1-py3-none-any.whl").stat().st_size
    assert (tmp_path / "build" / "build-deps" / "mylib" / "__init__.py").is_file()
    assert "build requirements the cell lacks" in r.stderr


def test_a_build_requirement_the_index_cannot_give_is_named(tmp_path):
    project = make_project(tmp_path / "proj", ["setuptools", "opmatrix-no-such-backend-zz>=1"])
    r = run_script(SCRIPT, "resolve", "--kind", "setuptools", "--source", project, "--build", tmp_path / "build",
                   "--cache", tmp_path / "cache", env=cell_env(PIP_NO_INDEX="1"))
    assert r.returncode == 1
    assert r.json["error"] == "unresolvable", r.json
    assert "opmatrix-no-such-backend-zz" in r.json["message"], r.json


def test_a_requirement_with_no_wheel_whose_source_build_fails_is_named(tmp_path):
    # torch-points-kernels asks numpy<1.20: no wheel for a new Python, and its sdist cannot build.
    wheelhouse = tmp_path / "wheelhouse"
    wheelhouse.mkdir()
    sdist(wheelhouse / "opmbroken-1.0.tar.gz",
          {"PKG-INFO": "Metadata-Version: 2.1\nName: opmbroken\nVersion: 1.0\n",
           "pyproject.toml": '[build-system]\nrequires = ["opm-no-such-backend"]\nbuild-backend = "opm_no_such_backend"\n'},
          "opmbroken-1.0")
    r = run_script(SCRIPT, "resolve", "--kind", "wheel", "--source", make_wheel(tmp_path, ["opmbroken>=1"]),
                   "--build", tmp_path / "build", "--cache", tmp_path / "cache",
                   env=cell_env(PIP_NO_INDEX="1", PIP_FIND_LINKS=str(wheelhouse)))
    assert r.returncode == 1
    assert r.json["error"] == "unresolvable", r.json
    assert r.json["message"].startswith("opmbroken>=1 has no wheel for the cell's Python"), r.json["message"]
    assert "source distribution fails here" in r.json["message"]


# An in-tree PEP 517 backend without prepare_metadata_for_build_wheel (as meson-python, numpy's):
# pip builds the whole wheel to read its metadata, and each build is counted in $OPM_BUILDS.
COUNTED_BACKEND = """
import base64, hashlib, os, zipfile

def get_requires_for_build_wheel(config_settings=None):
    return []

def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    with open(os.environ["OPM_BUILDS"], "a") as f:
        f.write("built\\n")
    name = "opmcounted-1.0-py3-none-any.whl"
    files = {"opmcounted/__init__.py": b"",
             "opmcounted-1.0.dist-info/WHEEL": b"Wheel-Version: 1.0\\nTag: py3-none-any\\n",
             "opmcounted-1.0.dist-info/METADATA": b"Metadata-Version: 2.1\\nName: opmcounted\\nVersion: 1.0\\n"}
    record = "".join("%s,sha256=%s,%d\\n" % (p, base64.urlsafe_b64encode(hashlib.sha256(b).digest()).rstrip(b"=").decode(),
                                            len(b)) for p, b in files.items()) + "opmcounted-1.0.dist-info/RECORD,,\\n"
    files["opmcounted-1.0.dist-info/RECORD"] = record.encode()
    with zipfile.ZipFile(os.path.join(wheel_directory, name), "w") as z:
        for p, b in files.items():
            z.writestr(p, b)
    return name
"""


def test_a_requirement_pip_builds_from_its_sdist_is_built_once(tmp_path):
    # megablocks 0.10.0's numpy<2.1.0 on Python 3.13: no wheel, numpy 2.0.2's sdist built by the
    # dry run to read its metadata; the download then takes the file the report names as it is.
    wheelhouse = tmp_path / "wheelhouse"
    wheelhouse.mkdir()
    sdist(wheelhouse / "opmcounted-1.0.tar.gz",
          {"PKG-INFO": "Metadata-Version: 2.1\nName: opmcounted\nVersion: 1.0\n",
           "pyproject.toml": '[build-system]\nrequires = []\nbuild-backend = "counted"\nbackend-path = ["."]\n',
           "counted.py": COUNTED_BACKEND},
          "opmcounted-1.0")
    builds = tmp_path / "builds"
    r = run_script(SCRIPT, "resolve", "--kind", "wheel", "--source", make_wheel(tmp_path, ["opmcounted>=1"]),
                   "--build", tmp_path / "build", "--cache", tmp_path / "cache",
                   env=cell_env(PIP_NO_INDEX="1", PIP_FIND_LINKS=str(wheelhouse), OPM_BUILDS=str(builds)))
    assert r.returncode == 0, r.stderr[-3000:]
    assert builds.read_text().count("built") == 1, "pip built the sdist again to download it"
    assert (tmp_path / "cache" / "files" / "opmcounted-1.0.tar.gz").is_file()


def test_a_requirement_built_from_its_sdist_offline_finds_the_backend_its_pyproject_declares(tmp_path):
    # flag-gems 5.0.2's numpy==1.26.4 on Python 3.13: only an sdist, whose backend (meson-python)
    # the cell lacks; the offline install built it without isolation: "Cannot import 'mesonpy'".
    wheelhouse = tmp_path / "wheelhouse"
    wheelhouse.mkdir()
    backend = COUNTED_BACKEND.replace("opmcounted", "opmsd").encode()
    make_wheel(wheelhouse, [], name="opmbackend", version="1.0", module=backend)
    sdist(wheelhouse / "opmsd-1.0.tar.gz",
          {"PKG-INFO": "Metadata-Version: 2.1\nName: opmsd\nVersion: 1.0\n",
           "pyproject.toml": '[build-system]\nrequires = ["opmbackend>=1"]\nbuild-backend = "opmbackend"\n'},
          "opmsd-1.0")
    builds = tmp_path / "builds"
    build = tmp_path / "build"
    r = run_script(SCRIPT, "resolve", "--kind", "wheel", "--source", make_wheel(tmp_path, ["opmsd>=1"]),
                   "--build", build, "--cache", tmp_path / "cache",
                   env=cell_env(PIP_NO_INDEX="1", PIP_FIND_LINKS=str(wheelhouse), OPM_BUILDS=str(builds)))
    assert r.returncode == 0, r.stderr[-3000:]
    assert r.json["sdist_build_requires"] == ["opmbackend==1.0"], r.json
    assert r.json["download_bytes"] == sum(f.stat().st_size for f in wheelhouse.iterdir())
    # Offline, no index: the backend comes from what resolve fetched, and only for this build.
    r = run_script(SCRIPT, "install", "--resolved", r.json["resolved"], "--build", build,
                   env=cell_env(PIP_NO_INDEX="1", PIP_FIND_LINKS=None, OPM_BUILDS=str(builds)))
    assert r.returncode == 0, r.stderr[-3000:]
    assert (build / "deps" / "opmsd" / "__init__.py").is_file()
    assert not (build / "deps" / "opmbackend").exists(), "the backend is the build's, not the project's"


# pip's words when a requirement is NVIDIA's wheel-stub placeholder and pypi.nvidia.com cannot be
# reached (torch-tensorrt 2.14.0's tensorrt-cu13-libs, as the install-plan step logged them).
WHEEL_STUB_OUTPUT = """\
      wheel_stub.error.InstallFailedError:
      *******************************************************************************

      The installation of tensorrt-cu13-libs for version 11.1.0.106 failed.

      This is a special placeholder package which downloads a real wheel package
      from https://pypi.nvidia.com/. If https://pypi.nvidia.com/ is not reachable, we
      cannot download the real wheel file to install.

      [end of output]
error: metadata-generation-failed
"""


def test_a_placeholder_fetching_its_wheel_from_an_index_the_run_does_not_reach_is_the_runs(monkeypatch):
    import sys
    from conftest import CELL
    sys.path.insert(0, str(CELL))
    import requirements
    assert requirements.index_elsewhere(WHEEL_STUB_OUTPUT) == ("tensorrt-cu13-libs", "11.1.0.106",
                                                               "https://pypi.nvidia.com")
    assert requirements.index_elsewhere("error: metadata-generation-failed\nNo module named 'setuptools'") is None
    # Named before the source build is blamed (which would read "has no wheel for the cell's Python").
    monkeypatch.setattr(requirements, "without_wheel", lambda *a: pytest.fail("the source build was blamed"))
    with pytest.raises(requirements.Failure) as refused:
        requirements.refuse(1, WHEEL_STUB_OUTPUT, "resolving torch-tensorrt==2.14.0", ["torch-tensorrt==2.14.0"], "c.txt")
    assert refused.value.out["error"] == "index_elsewhere"
    assert refused.value.out["index"] == "https://pypi.nvidia.com"
    assert refused.value.out["message"].startswith("tensorrt-cu13-libs 11.1.0.106 is a placeholder on PyPI that "
                                                   "downloads its wheel from https://pypi.nvidia.com")


def test_a_command_past_its_time_limit_is_stopped_with_what_it_started(tmp_path):
    # pip building an sdist runs its backend, which runs compilers: all of them stop at the limit.
    import sys
    import time
    from conftest import CELL
    sys.path.insert(0, str(CELL))
    import requirements
    started = time.monotonic()
    pidfile = tmp_path / "child.pid"
    rc, out = requirements.run(["bash", "-c", "sleep 60 & echo $! > %s; echo building; wait" % pidfile], timeout=1)
    assert rc == requirements.TIMED_OUT and "building" in out
    assert time.monotonic() - started < 30
    child = int(pidfile.read_text())
    time.sleep(0.2)
    assert not os.path.exists("/proc/%d" % child) or open("/proc/%d/stat" % child).read().split()[2] == "Z", \
        "the command's own child outlived the limit"


def test_a_dry_run_stopped_building_a_requirement_from_source_names_it(monkeypatch, tmp_path):
    # flag-gems 5.0.2 in Python 3.13: its numpy==1.26.4 has no cp313 wheel, and numpy's backend
    # compiles numpy to say its metadata; past the bound, pip with --only-binary :all: names it.
    import sys
    from conftest import CELL
    sys.path.insert(0, str(CELL))
    import install_plan
    import requirements
    monkeypatch.delenv("PIP_NO_INDEX", raising=False)
    monkeypatch.setattr(install_plan, "resolver_pip", lambda cache: (["fast-pip"], "pip 26.3"))
    monkeypatch.setattr(requirements, "run", lambda argv, base=None, timeout=None: (requirements.TIMED_OUT, ""))
    asked = []
    monkeypatch.setattr(requirements, "without_wheel",
                        lambda reqs, constraints=None, pip=None, index=(): asked.append(pip) or "numpy==1.26.4")
    with pytest.raises(requirements.Failure) as refused:
        requirements.resolved_by_metadata(["flag-gems==5.0.2"], "c.txt", str(tmp_path / "r.json"), str(tmp_path),
                                          str(tmp_path / "files"))
    assert asked == [["fast-pip"]], "asked of the pip that was stopped, at its index"
    assert refused.value.out["error"] == "unresolvable"
    assert refused.value.out["message"].startswith("numpy==1.26.4 has no wheel for the cell's Python"), refused.value.out
    assert "ran past %d s" % requirements.SOURCE_BUILD_BOUND_S in refused.value.out["message"]


def test_the_requirement_without_a_wheel_is_named_without_its_requirer(monkeypatch):
    import sys
    from conftest import CELL
    sys.path.insert(0, str(CELL))
    import requirements
    said = "ERROR: No matching distribution found for numpy==1.26.4 (from flag-gems)\n"
    monkeypatch.setattr(requirements, "run", lambda argv, base=None, timeout=None: (1, said))
    assert requirements.without_wheel(["flag-gems==5.0.2"]) == "numpy==1.26.4"
    monkeypatch.setattr(requirements, "run", lambda argv, base=None, timeout=None: (0, ""))
    assert requirements.without_wheel(["flag-gems==5.0.2"]) is None


def test_a_setuptools_build_gets_what_the_newest_setuptools_lets_setup_py_import(tmp_path, monkeypatch):
    # rotary-emb 0.5.2: no pyproject.toml, setup.py's `from packaging.version import parse`. A
    # user's isolated build has the newest setuptools, whose vendored packaging setup.py imports;
    # the PyPI images' setuptools 66.1.1 has none: the cell lacks it, and gets it as a build
    # requirement. Another backend gives nothing beyond what the project declares.
    import sys
    sys.path.insert(0, str(__import__("conftest").CELL))
    import build_requires
    from packaging.requirements import Requirement
    legacy = tmp_path / "legacy"
    legacy.mkdir()
    (legacy / "setup.py").write_text("from packaging.version import parse\n")
    declared = tmp_path / "declared"
    declared.mkdir()
    (declared / "pyproject.toml").write_text('[build-system]\nrequires = ["setuptools>=64", "packaging>=23"]\n'
                                             'build-backend = "setuptools.build_meta"\n')
    hatch = tmp_path / "hatch"
    hatch.mkdir()
    (hatch / "pyproject.toml").write_text('[build-system]\nrequires = ["hatchling"]\nbuild-backend = "hatchling.build"\n')
    assert build_requires.backend_provides(str(legacy)) == ["packaging"]
    assert build_requires.backend_provides(str(declared)) == ["packaging"]
    assert build_requires.backend_provides(str(hatch)) == []
    monkeypatch.setattr(build_requires, "satisfied", lambda text, _: text.startswith("setuptools"))
    never_torch = lambda name: False  # noqa: E731
    assert build_requires.missing(str(legacy), Requirement, never_torch) == ["packaging"]
    assert build_requires.missing(str(declared), Requirement, never_torch) == ["packaging>=23"]
    assert build_requires.missing(str(hatch), Requirement, never_torch) == ["hatchling"]


def test_cells_resolving_the_same_set_at_once_each_read_their_own_report(tmp_path):
    # rotary-emb and mpi4torch beside PyPI's torch 2.15 both resolved `packaging` at once: one
    # shared <set>/report.json, and the cell that read it last fetched from the other's index,
    # gone by then. Each resolve's report is its own now; none is left in the shared folder.
    from concurrent.futures import ThreadPoolExecutor
    wheelhouse = tmp_path / "wheelhouse"
    wheelhouse.mkdir()
    make_wheel(wheelhouse, [])
    project = make_project(tmp_path / "proj", ["setuptools", "mylib>=0.1"])
    env = cell_env(PIP_NO_INDEX="1", PIP_FIND_LINKS=str(wheelhouse))

    def resolve_in(build):
        return run_script(SCRIPT, "resolve", "--kind", "setuptools", "--source", project, "--build", tmp_path / build,
                          "--cache", tmp_path / "cache", env=env)
    with ThreadPoolExecutor(2) as pool:
        runs = list(pool.map(resolve_in, ["build-a", "build-b"]))
    for r in runs:
        assert r.returncode == 0, r.stderr[-2000:]
        assert r.json["build_requires"] == ["mylib==0.1"], r.json
    sets = [d for d in (tmp_path / "cache").iterdir() if (d / "resolved.json").is_file()]
    assert sets, list((tmp_path / "cache").iterdir())
    for d in sets:
        assert sorted(p.name for p in d.iterdir() if "report" in p.name) == [], list(d.iterdir())
