"""scripts/cell/install_plan.py: pip's dry-run answer judged against what the cell has installed.
A replacement is an installed torch-family package whose version would change; torch-family
packages that are only added (NVIDIA's CUDA 12 runtime wheels a library needs beside a torch
without them) replace nothing. In-process, no network: the answer pip gave is handed in, or kept."""
import json
import os
import sys

import pytest

from conftest import CELL

sys.path.insert(0, str(CELL))
import install_plan  # noqa: E402

INSTALLED = {"torch": "2.14.1+debian", "torchvision": "0.27.0", "numpy": "2.3.0"}


@pytest.fixture(autouse=True)
def installed(monkeypatch):
    monkeypatch.setattr(install_plan, "installed_versions", lambda: dict(INSTALLED))


def test_added_nvidia_wheels_replace_nothing():
    # cuequivariance-ops-torch-cu12 0.13.0 next to Debian's CPU torch 2.14 (pip's own list).
    install = [{"name": "cuequivariance-ops-torch-cu12", "version": "0.13.0"},
               {"name": "cuequivariance-ops-cu12", "version": "0.13.0"},
               {"name": "nvidia-cublas-cu12", "version": "12.9.3.13"},
               {"name": "nvidia-cuda-nvrtc-cu12", "version": "12.9.86"},
               {"name": "nvidia-ml-py", "version": "13.615.71"}]
    answer = install_plan.judged("cuequivariance-ops-torch-cu12==0.13.0", install)
    assert answer["plan"] == "installs" and answer["torch_family"] == []
    assert answer["install"] == install


def test_a_new_torch_is_a_replacement_with_what_comes_along():
    install = [{"name": "torch-harmonics", "version": "0.9.3"}, {"name": "torch", "version": "2.15.0"},
               {"name": "triton", "version": "3.8.0"}, {"name": "nvidia-cublas", "version": "13.4.1.3"}]
    answer = install_plan.judged("torch-harmonics==0.9.3", install)
    assert answer["plan"] == "replaces_torch"
    assert answer["torch_family"] == [{"name": "torch", "from": "2.14.1+debian", "to": "2.15.0"},
                                      {"name": "triton", "from": None, "to": "3.8.0"},
                                      {"name": "nvidia-cublas", "from": None, "to": "13.4.1.3"}]


def test_a_kept_answer_is_judged_again(tmp_path):
    # Kept by the rule before: the added NVIDIA wheels were a "replacement".
    requirement = "cuequivariance-ops-torch-cu12==0.13.0"
    key = install_plan.cache_key([requirement], install_plan.torch_family_pins())
    (tmp_path / "plans").mkdir()
    install = [{"name": "cuequivariance-ops-torch-cu12", "version": "0.13.0"},
               {"name": "nvidia-cublas-cu12", "version": "12.9.3.13"}]
    (tmp_path / "plans" / (key + ".json")).write_text(json.dumps(
        {"ok": True, "requirement": requirement, "plan": "replaces_torch", "install": install,
         "torch_family": [{"name": "nvidia-cublas-cu12", "from": None, "to": "12.9.3.13"}]}))
    answer = install_plan.plan(requirement, str(tmp_path))
    assert answer["cached"] is True
    assert answer["plan"] == "installs" and answer["torch_family"] == []
    assert os.listdir(tmp_path / "plans") == [key + ".json"]


# --- which pip resolves --------------------------------------------------------------------------

class FakePips:
    """pip's dry run as two pips answer it: RESOLVER (argv[1] ends in /pip) and the runtime's own
    (`-m pip`). Each writes the report it is given or refuses with its words."""

    def __init__(self, fast, own):
        self.answers = {"fast": fast, "own": own}
        self.asked = []

    def __call__(self, argv, base=None, timeout=None):
        who = "own" if argv[1:3] == ["-m", "pip"] else "fast"
        self.asked.append((who, any(a.startswith("http://127.0.0.1:") for a in argv)))  # the metadata index
        rc, words, install = self.answers[who]
        if rc == 0:
            report = argv[argv.index("--report") + 1]
            with open(report, "w") as f:
                json.dump({"install": [{"metadata": {"name": n, "version": v}} for n, v in install]}, f)
        return rc, words


@pytest.fixture
def pips(monkeypatch):
    def make(fast, own, fetched=True, absent=()):
        fake = FakePips(fast, own)
        # The index, asked whether a required project exists at all: these names it lacks.
        monkeypatch.setattr(install_plan.fetch_pypi, "absent_from_index", lambda name: name in absent)
        monkeypatch.setattr(install_plan, "run", fake)
        monkeypatch.setattr(install_plan, "runtime_pip", lambda: "this runtime's pip 23.0.1")
        monkeypatch.setattr(install_plan, "resolver_pip", lambda cache: (
            [sys.executable, "/downloads/pip-26.3/pip-26.3-py3-none-any.whl/pip"], "pip 26.3 reading wheel METADATA alone")
            if fetched else None)
        return fake
    return make


NO_WHEEL = (1, "ERROR: No matching distribution found for libx==1.0\n", [])
RESOLVED = (0, "", [("libx", "1.0"), ("torch", "2.5.1")])


def test_the_fast_resolver_answers_when_it_resolves(pips, tmp_path):
    fake = pips(fast=RESOLVED, own=NO_WHEEL)
    answer = install_plan.plan("libx==1.0", str(tmp_path))
    assert fake.asked == [("fast", True)]
    assert answer["resolver"] == "pip 26.3 reading wheel METADATA alone"
    assert answer["plan"] == "replaces_torch"
    again = install_plan.plan("libx==1.0", str(tmp_path))
    assert again["cached"] is True and again["resolver"] == "pip 26.3 reading wheel METADATA alone" and len(fake.asked) == 1


def test_a_refusal_is_asked_again_of_the_runtimes_own_pip(pips, tmp_path):
    # The newer pip refuses (it is stricter about some metadata); the runtime's pip resolves: its answer stands.
    fake = pips(fast=(1, "ERROR: Invalid requirement: 'torch>=1.8.*'\n", []), own=RESOLVED)
    answer = install_plan.plan("libx==1.0", str(tmp_path))
    assert fake.asked == [("fast", True), ("own", False)]
    assert answer["resolver"] == "this runtime's pip 23.0.1" and answer["plan"] == "replaces_torch"


def test_a_refusal_both_pips_make_is_the_runtimes_words(pips, tmp_path):
    fake = pips(fast=NO_WHEEL, own=NO_WHEEL)
    with pytest.raises(install_plan.Failure) as refused:
        install_plan.plan("libx==1.0", str(tmp_path))
    assert fake.asked == [("fast", True), ("own", False)]
    assert refused.value.out["error"] == "no_wheel"
    assert not os.path.exists(tmp_path / "plans" / (install_plan.cache_key(["libx==1.0"], install_plan.torch_family_pins()) + ".json"))


def test_a_requirement_without_a_wheel_is_not_the_release_without_one(pips, tmp_path):
    # torchdata 0.6.1 in Python 3.13: its py3-none-any wheel is there, the torch==2.0.1 it pins has
    # no cp313 wheel; pip names the requirer in parentheses, which is not the missing one.
    words = (1, "ERROR: Could not find a version that satisfies the requirement torch==2.0.1 (from libx) "
                "(from versions: 2.5.0, 2.6.0)\nERROR: No matching distribution found for torch==2.0.1\n", [])
    pips(fast=words, own=words)
    with pytest.raises(install_plan.Failure) as refused:
        install_plan.plan("libx==1.0", str(tmp_path))
    assert refused.value.out["error"] == "requirement_no_wheel"
    assert refused.value.out["requirement"] == "torch==2.0.1"
    assert refused.value.out["message"].startswith("pip cannot install libx==1.0 here: it requires torch==2.0.1, "
                                                   "which has no wheel for this cell's Python")
    assert install_plan.wanted_in("ERROR: No matching distribution found for libx==1.0") == ("libx", "libx==1.0")


def test_a_requirement_pinned_to_a_local_version_is_pypis_want_not_the_pythons(pips, tmp_path):
    # torch-rbln 0.12.0 pins torch==2.13.0+cpu: PyPI serves no local versions, so no Python or
    # platform has it there (it is on PyTorch's own index); not "no wheel for this cell's Python".
    words = (1, "ERROR: Could not find a version that satisfies the requirement torch==2.13.0+cpu (from libx) "
                "(from versions: 2.12.1, 2.13.0, 2.14.0)\nERROR: No matching distribution found for torch==2.13.0+cpu\n", [])
    pips(fast=words, own=words)
    with pytest.raises(install_plan.Failure) as refused:
        install_plan.plan("libx==1.0", str(tmp_path))
    assert refused.value.out["error"] == "requirement_local_version"
    assert refused.value.out["index"] == "https://download.pytorch.org/whl/cpu"
    assert refused.value.out["message"] == (
        "pip cannot install libx==1.0 from PyPI: it requires torch==2.13.0+cpu, a local version (+cpu), which PyPI "
        "never serves (the index holds torch 2.13.0, not its +cpu build): it fails so on every Python and platform; "
        "that build is on PyTorch's own index, https://download.pytorch.org/whl/cpu, where pip would take it in "
        "place of this runtime's torch")
    # A local version of another project: no index is known for it.
    local = install_plan.local_version_pin("mylib==1.0+abc", "(from versions: 0.9)")
    assert local == {"public": "1.0", "label": "abc", "index": "", "listed": False}
    assert install_plan.local_version_pin("torch==2.13.0", "(from versions: 2.13.0)") is None


def test_a_dry_run_stopped_building_a_requirement_from_source_names_it(pips, monkeypatch, tmp_path):
    # flag-gems 5.0.2 in Python 3.13: pip builds numpy 1.26.4 (no cp313 wheel) to read its
    # metadata, past the bound; pip with --only-binary :all: names it. Not asked of a second pip.
    fake = pips(fast=(install_plan.TIMED_OUT, "", []), own=RESOLVED)
    asked = []
    monkeypatch.setattr(install_plan, "without_wheel", lambda reqs, pip=None, index=(): asked.append(reqs) or "numpy==1.26.4")
    with pytest.raises(install_plan.Failure) as refused:
        install_plan.plan("libx==1.0", str(tmp_path))
    assert fake.asked == [("fast", True)] and asked == [["libx==1.0"]]
    assert refused.value.out["error"] == "requirement_no_wheel"
    assert refused.value.out["requirement"] == "numpy==1.26.4"
    assert refused.value.out["message"] == (
        "pip cannot install libx==1.0 here without building a requirement from source: numpy==1.26.4 has no wheel "
        "for the cell's Python %d.%d: pip builds it from its source distribution to read its metadata, and that "
        "build ran past %d s (a user's pip install builds it in full)" % (sys.version_info[:2] + (
            install_plan.SOURCE_BUILD_BOUND_S,)))


def test_a_dry_run_stopped_with_every_requirement_a_wheel_is_no_finding(pips, monkeypatch, tmp_path):
    pips(fast=(install_plan.TIMED_OUT, "", []), own=RESOLVED)
    monkeypatch.setattr(install_plan, "without_wheel", lambda reqs, pip=None, index=(): None)
    with pytest.raises(install_plan.Failure) as refused:
        install_plan.plan("libx==1.0", str(tmp_path))
    assert refused.value.out["error"] == "internal"


def test_a_requirement_no_index_holds_is_said_so_with_its_fix(pips, tmp_path):
    # cumesh 0.1.0 requires `python (>=3.8)`: no project of that name exists, so no Python or
    # platform installs it; not "no wheel for this cell's Python".
    words = (1, "ERROR: Could not find a version that satisfies the requirement python>=3.8 (from libx) "
                "(from versions: none)\nERROR: No matching distribution found for python>=3.8\n", [])
    pips(fast=words, own=words, absent=("python",))
    with pytest.raises(install_plan.Failure) as refused:
        install_plan.plan("libx==1.0", str(tmp_path))
    assert refused.value.out["error"] == "requirement_not_on_index"
    assert refused.value.out["message"].startswith(
        "pip cannot install libx==1.0: it requires python>=3.8, and the index has no project named python: pip "
        "cannot install it on any Python or platform; Python's own version belongs in Requires-Python, not in "
        "Requires-Dist (pip: ")


def test_without_the_resolver_the_runtimes_pip_answers(pips, tmp_path):
    fake = pips(fast=RESOLVED, own=RESOLVED, fetched=False)
    answer = install_plan.plan("libx==1.0", str(tmp_path))
    assert fake.asked == [("own", False)] and answer["resolver"] == "this runtime's pip 23.0.1"


def test_the_resolver_is_fetched_by_hash_and_run_by_this_python(monkeypatch, tmp_path):
    seen = {}

    def fetch(args):
        seen.update(kind=args.kind, requirement=args.requirement, cache=args.cache)
        return {"path": str(tmp_path / "pip-26.3" / "pip-26.3-py3-none-any.whl"), "version": "26.3"}
    monkeypatch.setattr(install_plan.fetch_pypi, "fetch", fetch)
    argv, name = install_plan.resolver_pip(str(tmp_path))
    assert seen == {"kind": "wheel", "requirement": install_plan.RESOLVER, "cache": str(tmp_path)}
    assert argv[:2] == [sys.executable, str(tmp_path / "pip-26.3" / "pip-26.3-py3-none-any.whl" / "pip")]
    assert "--disable-pip-version-check" in argv and name == "pip 26.3 reading wheel METADATA alone"

    def down(args):
        raise install_plan.fetch_pypi.Failure("network", "pypi.org unreachable")
    monkeypatch.setattr(install_plan.fetch_pypi, "fetch", down)
    assert install_plan.resolver_pip(str(tmp_path)) is None


def test_a_wheel_requiring_torch_only_under_an_extra_is_planned_with_it(tmp_path):
    # deepmd-kit 3.2.0: `torch==2.11.0; extra == "torch"`; its torch side's users install
    # deepmd-kit[torch], and that is what pip is asked. The wheel is the fetch step's, in the cache.
    import zipfile
    import fetch_pypi
    folder = tmp_path / "mylib-0.1"
    folder.mkdir()
    wheel = "mylib-0.1-py3-none-any.whl"
    with zipfile.ZipFile(folder / wheel, "w") as z:
        z.writestr("mylib-0.1.dist-info/METADATA", "Metadata-Version: 2.1\nName: mylib\nVersion: 0.1\n"
                   "Requires-Dist: numpy\nRequires-Dist: torch==2.11.0; extra == \"torch\"\n")
        z.writestr("mylib-0.1.dist-info/WHEEL", "Wheel-Version: 1.0\nTag: py3-none-any\n")
    (folder / fetch_pypi.LISTING).write_text(json.dumps({"version": "0.1", "files": [
        {"filename": wheel, "url": "https://example.invalid/" + wheel, "sha256": "0" * 64, "size": 1}]}))
    assert install_plan.with_torch_extra("mylib==0.1", str(tmp_path)) == ("mylib[torch]==0.1", "torch")
    # Not in the cache: asked as it is (nothing is downloaded here).
    assert install_plan.with_torch_extra("otherlib==0.1", str(tmp_path)) == ("otherlib==0.1", None)
    answer = install_plan.judged("mylib[torch]==0.1", [{"name": "mylib", "version": "0.1"},
                                                       {"name": "torch", "version": "2.11.0"}], "mylib", "torch")
    assert answer["torch_extra"] == "torch" and answer["plan"] == "replaces_torch"


def test_a_test_extra_that_requires_torch_is_not_the_torch_side():
    # cuequivariance-ops-torch-cu12 requires torch only under [test] (its own tests'): users install it
    # as it is (planning cuequivariance-ops-torch-cu12[test] ran past the step's 300 s).
    from wheel_metadata import torch_extra
    assert torch_extra(["numpy", 'torch>=2.4; extra == "test"', 'pytest; extra == "test"']) is None
    assert torch_extra(['torch; extra == "gpu"']) is None
    assert torch_extra(['torch; extra == "dpa-adapt"', 'torch==2.11.0; extra == "torch"']) == "torch"
    assert torch_extra(['torch; extra == "torch-cpu"']) == "torch-cpu"
