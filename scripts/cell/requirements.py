"""A project's own requirements, as a user's `pip install` would bring them, except what the cell
is there to judge (torch, torchvision and the NVIDIA/Triton wheels torch brings): resolved for
the cell's Python and downloaded in a step with network (as the fetch step has), installed offline after.

    requirements.py resolve --kind setuptools|sdist|wheel|cmake --source SRC --build BUILD
                            --cache DIR [--tests] [--require R]...
    requirements.py install --resolved FILE --build BUILD

`resolve` reads the project's Requires-Dist (a wheel's METADATA; a source folder's or an sdist's
metadata as pip prepares it, from a copy in BUILD/src, without build isolation), keeps the
requirements whose markers hold in this cell, adds with --tests pytest, the library's `test`,
`tests` or `testing` extra, its test requirement files and its `test` dependency group, and each
--require (the matrix's `test_requires:`). It resolves them with `pip install --dry-run --report`
against the cell's own installed packages, with the torch family pinned by constraints to the
versions the cell has (so torch is never replaced: a requirement that needs another torch cannot
be resolved, and says so), and downloads what is missing with `pip download --no-deps` into
DIR/files/, one folder for every requirement set (a file is fetched once, whichever projects
and runtimes need it: an atlas's hundreds of pairs share NVIDIA's wheels), with DIR/<key>/resolved.json
(key: the requirements, the Python and the pinned torch family) naming the files this set uses,
written last and atomically: a second run with the same key needs no network.

`install` installs what resolved.json lists with `pip install --no-index --no-deps --target
BUILD/deps` (the folder later steps put on PYTHONPATH after the project's own). A requirement
that comes as an sdist is built there offline without isolation: the build requirements its
pyproject.toml declares and the cell lacks (a meson-python, hatchling or setuptools-scm) are
resolved and fetched with the rest (resolved.json's "build_install") and put on that pip's path
from BUILD/deps-backends, as a user's isolated build would have them. The shared
libraries of their data schemes (tbb's libtbb.so.12, for <venv>/lib) go into BUILD/deps-data/lib,
which later steps put on LD_LIBRARY_PATH: `--target` drops that folder.

For a source project, `resolve` first fetches the build requirements ([build-system].requires)
the cell's Python lacks and installs them into BUILD/build-deps (build_requires.py): the
metadata and the build need its backend, which a user's isolated build would have had.

stdout: one JSON object. resolve: {"ok": true, "requirements": [...], "left_out": [...],
"install": [{"name", "version", "file"}], "resolved": FILE or "", "cached": bool,
"build_requires": [name==version installed into BUILD/build-deps], "sdist_build_requires": [name==version
the requirements' sdists build with] where some, "download_bytes": what a run
with an empty cache downloads for them (build requirements included), "torch_extra": the extra whose
requirements were added where torch is required only under it (deepmd-kit's "torch")}; install:
{"ok": true, "installed": [...], "deps": BUILD/deps, "data_libraries": [...] where some}; either: {"ok": false, "error": KIND,
"message": ...} with exit status 1, KIND one of metadata, unresolvable, network, install_failed,
usage, internal."""
import argparse
import hashlib
import json
import os
import re
import shutil
import sys
import tarfile
import tempfile
import urllib.parse
import urllib.request
import zipfile

import build_requires
import fetch_pypi
from build_wheel import TIMED_OUT, Refused, prepare, run_captured
from fetch_pypi import normalise, write_atomic
from wheel_tags import best_wheel, interpreter_tags
from wheel_metadata import metadata, packaging, torch_extra

PIP = [sys.executable, "-m", "pip", "--disable-pip-version-check", "--no-input"]
TORCH_FAMILY = re.compile(r"^(torch|torchvision|torchaudio|triton|pytorch-triton(-.*)?|nvidia-.*)$")
TEST_EXTRAS = ("test", "tests", "testing")
# Where the build requirements of the requirements that come as sdists are installed for the
# install step's builds of them (not on any later step's path).
SDIST_BACKENDS = "deps-backends"
TEST_GROUPS = ("test", "tests", "testing")
TEST_FILES = ("requirements-test.txt", "requirements_test.txt", "test-requirements.txt", "test_requirements.txt",
              "requirements-tests.txt", "requirements/test.txt", "requirements/tests.txt", "test/requirements.txt",
              "tests/requirements.txt")


class Failure(Exception):
    def __init__(self, kind, message, **extra):
        super().__init__(message)
        self.out = dict({"ok": False, "error": kind, "message": message}, **extra)


def log(*words):
    print("requirements.py:", *words, file=sys.stderr, flush=True)


def run(argv, base=None, timeout=None):
    """pip's output to the log (stderr); (exit status, its output): TIMED_OUT past TIMEOUT s."""
    env = dict(os.environ if base is None else base)
    # The fetch step's CA bundle (a re-signing proxy's): pip reads its own variable, not OpenSSL's.
    if env.get("SSL_CERT_FILE") and not env.get("PIP_CERT"):
        env["PIP_CERT"] = env["SSL_CERT_FILE"]
    return run_captured(argv, env, timeout)


# --- what the project asks for --------------------------------------------------------------

def wheel_requires(wheel):
    return metadata(wheel)[1]


def source_requires(source, build, cache):
    """Requires-Dist of a source folder or an sdist, as pip prepares its metadata (setup.py
    egg_info or the PEP 517 hook), from BUILD/src: the project's folder is read-only. The build
    requirements the cell lacks are fetched and installed first (build_requires.py): pip needs
    the backend to read the metadata. Returns (Requires-Dist, the build requirements installed,
    their files' bytes)."""
    src = os.path.join(build, "src")
    try:
        prepare(source, src, build)
    except Refused as e:
        raise Failure("metadata", str(e))
    backend, backend_bytes = build_requirements(src, build, cache)
    report = os.path.join(build, "requirements-metadata.json")
    rc, out = run(PIP + ["install", "--dry-run", "--no-deps", "--no-build-isolation", "--no-index", "--ignore-installed",
                         "--quiet", "--report", report, src], build_requires.env(build))
    if rc != 0:
        errors = [line.strip() for line in out.splitlines() if line.strip().startswith(("error", "ERROR"))]
        raise Failure("metadata", "pip could not read the project's metadata (its setup.py egg_info or build "
                      "backend failed, exit %d)%s; the build step runs the same code and says more" % (
                          rc, ": " + " ".join(errors[-2:]) if errors else ""))
    with open(report) as f:
        items = json.load(f).get("install", [])
    return (items[0].get("metadata", {}).get("requires_dist", []) if items else []), backend, backend_bytes


def build_requirements(src, build, cache):
    """The project's build requirements the cell lacks, fetched (with the cell's torch family
    pinned) and installed into BUILD/build-deps; (their name==version, their files' bytes)."""
    deps = os.path.join(build, build_requires.BUILD_DEPS)
    shutil.rmtree(deps, ignore_errors=True)
    Requirement = packaging()[0]
    lacking = build_requires.missing(src, Requirement, lambda name: TORCH_FAMILY.match(normalise(name)))
    if not lacking:
        return [], 0
    log("build requirements the cell lacks (a user's pip gets them in its isolated build): " + ", ".join(lacking))
    folder, install_list, _ = fetch(lacking, "the build requirements " + ", ".join(lacking), cache)
    install_files([os.path.join(folder, i["file"]) for i in install_list], deps, "the project's build requirements")
    return ["%s==%s" % (i["name"], i["version"]) for i in install_list], files_bytes(folder, install_list)


def files_bytes(folder, install_list):
    """The bytes of the files FETCH left for INSTALL_LIST: what a run with an empty cache downloads
    (the dry run of a later run counts them: opmatrix run --dry-run)."""
    return sum(os.path.getsize(os.path.join(folder, i["file"])) for i in install_list)


def requirement_files(src):
    """Requirement lines of the library's test requirement files; options (-r, -e, --index-url)
    are left out and named: they are pip's instructions, not requirements."""
    found, skipped = [], []
    for rel in TEST_FILES:
        path = os.path.join(src, rel)
        if not os.path.isfile(path):
            continue
        with open(path, encoding="utf-8", errors="replace") as f:
            for line in f:
                line = line.split(" #")[0].strip()
                if not line or line.startswith("#"):
                    continue
                (skipped if line.startswith("-") else found).append(line if not line.startswith("-") else rel + ": " + line)
    return found, skipped


def dependency_groups(src):
    """pyproject.toml's [dependency-groups] test/tests/testing (PEP 735); plain strings only."""
    path = os.path.join(src, "pyproject.toml")
    if not os.path.isfile(path):
        return []
    try:
        import tomllib
    except ImportError:  # Python < 3.11: no TOML reader in the standard library
        return []
    with open(path, "rb") as f:
        try:
            groups = tomllib.load(f).get("dependency-groups", {})
        except tomllib.TOMLDecodeError:
            return []
    return [r for g in TEST_GROUPS for r in groups.get(g, []) if isinstance(r, str)]


def wanted(requires, tests, extra_lines, installed, extras=()):
    """(requirements for pip, left out with the reason) from Requires-Dist and the test ones. A
    torch-family requirement is left out where the cell has that distribution (INSTALLED: the names
    torch_family_pins() pins; it is what the cell judges); one the cell lacks is pip's to add, as it
    does for a user (triton beside Debian's torch, which has none; nvidia-ml-py, which flashinfer
    imports as pynvml)."""
    Requirement, InvalidRequirement, default_environment = packaging()
    keep, left_out, seen = [], [], set()
    candidates = [(r, "") for r in requires] + [(r, "test") for r in extra_lines]
    for text, origin in candidates:
        try:
            req = Requirement(text)
        except InvalidRequirement as e:
            left_out.append({"requirement": text, "why": "not a requirement pip reads (%s)" % e})
            continue
        if req.marker is not None:
            chosen = [""] + list(extras) + (list(TEST_EXTRAS) if tests else [])
            if not any(req.marker.evaluate(dict(default_environment(), extra=x)) for x in chosen):
                continue  # another platform's, Python's or extra's: pip would not install it either
        if TORCH_FAMILY.match(normalise(req.name)) and normalise(req.name) in installed:
            left_out.append({"requirement": text, "why": "the cell's own (the cell is there to judge it)"})
            continue
        if req.url:
            left_out.append({"requirement": text, "why": "a direct URL: only PyPI is reachable"})
            continue
        bare = normalise(req.name) + ("[%s]" % ",".join(sorted(req.extras)) if req.extras else "") + str(req.specifier)
        if bare not in seen:
            seen.add(bare)
            keep.append(bare)
    return keep, left_out


# --- resolving and fetching ------------------------------------------------------------------

def torch_family_pins():
    """name==version of every installed torch-family distribution: pip's constraints."""
    from importlib import metadata
    pins = {}
    for dist in metadata.distributions():
        name = normalise(dist.metadata["Name"] or "")
        if TORCH_FAMILY.match(name):
            pins[name] = "%s==%s" % (name, dist.version)
    return [pins[k] for k in sorted(pins)]


def cache_key(requirements, pins):
    text = json.dumps({"requirements": sorted(requirements), "python": sys.version.split()[0],
                       "platform": sys.platform, "machine": os.uname().machine, "pins": pins}, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:20]


def unresolvable(out, python):
    """pip's refusal, in words: which requirement, for which Python."""
    lines = [l.strip() for l in out.splitlines()]
    for pattern in (r"No matching distribution found for (.+)", r"Could not find a version that satisfies the requirement (\S+)"):
        for l in lines:
            m = re.search(pattern, l)
            if m:
                wanted = m.group(1).strip()
                name = re.match(r"[A-Za-z0-9._-]+", wanted)
                if name and fetch_pypi.absent_from_index(name.group(0)):
                    return "%s: %s (pip: %s)" % (wanted, fetch_pypi.not_on_index(normalise(name.group(0))), l)
                return "%s cannot be had for the cell's Python %s from the index (pip: %s)" % (wanted, python, l)
    conflict = [l for l in lines if re.search(r"\bconflict|\brequires\b.*\bbut\b", l, re.I) and not l.startswith("File ")]
    if conflict or "ResolutionImpossible" in out:
        return ("the project's requirements cannot be resolved together with the cell's torch family (pinned) for "
                "Python %s: %s" % (python, " ".join(conflict[:3]) or "pip: ResolutionImpossible"))
    return None


NETWORK_WORDS = ("NewConnectionError", "Temporary failure in name resolution", "Max retries exceeded", "SSLError",
                 "ConnectionError", "Network is unreachable", "timed out")


# NVIDIA's wheel-stub: a placeholder sdist on PyPI whose build downloads the real wheel from
# another index (tensorrt-cu13-libs from pypi.nvidia.com). Its own words, which name that index.
PLACEHOLDER = re.compile(r"installation of (\S+) for version (\S+) failed\.?\s+This is a special placeholder package "
                         r"which downloads a real wheel package\s+from (\S+?)/?\.\s")


def index_elsewhere(out):
    """Where pip failed on a placeholder that fetches its wheel from another index: (package,
    version, index URL), else None. Only the indexes a run reaches are checked: that index's
    wheel is not the package's fault when this run cannot reach it, nor the library's."""
    m = PLACEHOLDER.search(re.sub(r"\s+", " ", out))
    return (m.group(1), m.group(2), m.group(3)) if m else None


def refuse_index_elsewhere(out, what):
    found = index_elsewhere(out)
    if found:
        package, version, url = found
        raise Failure("index_elsewhere", "%s %s is a placeholder on PyPI that downloads its wheel from %s, which "
                      "this run does not reach: what needs it is not checked here (pip, %s)" % (
                          package, version, url, what), package=package, version=version, index=url)


# A dry run that builds a requirement's sdist to read its metadata (no wheel of it for this
# Python) may take a step's whole time: flag-gems 5.0.2 pins numpy==1.26.4, which has no wheel for
# Python 3.13, and numpy's meson backend compiles numpy to say its metadata (4 min here, then the
# build fails: numpy 1.26 does not support 3.13). Past this bound the dry run is stopped and the
# requirement named (without_wheel) in what the step reports.
SOURCE_BUILD_BOUND_S = 150


def without_wheel(requirements, constraints=None, pip=None, index=()):
    """Where pip failed inside a source distribution it had to build (no wheel for this Python),
    or ran past SOURCE_BUILD_BOUND_S building one: which requirement that was, as pip says with
    --only-binary (its 'No matching distribution'), asked of PIP (the runtime's) at INDEX."""
    # --report: without it Debian's pip refuses even a dry run (externally managed environment).
    with tempfile.TemporaryDirectory(prefix="only-binary-") as folder:
        rc, out = run((pip or PIP) + ["install", "--dry-run", "--quiet", "--report", os.path.join(folder, "report.json"),
                                      "--only-binary", ":all:"] + (["-c", constraints] if constraints else []) +
                      list(index) + requirements)
    m = re.search(r"No matching distribution found for (.+)", out) if rc != 0 else None
    # "numpy==1.26.4 (from flag-gems)": the requirement, without the requirer pip names.
    return re.sub(r"\s*\(from [^)]*\)$", "", m.group(1).strip()) if m else None


def source_build_past_bound(wheel_less, python):
    """What a dry run stopped at SOURCE_BUILD_BOUND_S says, where WHEEL_LESS was being built."""
    return ("%s has no wheel for the cell's Python %s: pip builds it from its source distribution to read its "
            "metadata, and that build ran past %d s (a user's pip install builds it in full)" % (
                wheel_less, python, SOURCE_BUILD_BOUND_S))


def refuse(rc, out, what, requirements=None, constraints=None):
    python = "%d.%d" % sys.version_info[:2]
    if any(w in out for w in NETWORK_WORDS):
        raise Failure("network", "%s could not reach the index (pip exit %d). This is the infrastructure, not the "
                      "project: check the fetch step's network and run again" % (what, rc))
    refuse_index_elsewhere(out, what)
    # pip built an sdist to read its metadata (torch-points-kernels' numpy<1.20 has no wheel for
    # Python 3.13) and that build failed: name the requirement and the build's own last words.
    exceptions = [l.strip() for l in out.splitlines() if re.match(r"^\s*[\w.]+(Error|Exception|Unavailable): ", l)]
    if requirements and ("ERROR: Exception:" in out or "metadata-generation-failed" in out or
                         "subprocess-exited-with-error" in out):
        wheel_less = without_wheel(requirements, constraints)
        if wheel_less:
            raise Failure("unresolvable", "%s has no wheel for the cell's Python %s, and pip's build of its source "
                          "distribution fails here%s" % (wheel_less, python, ": " + exceptions[-1] if exceptions else ""),
                          python=python)
    why = unresolvable(out, python)
    if why:
        raise Failure("unresolvable", why, python=python)
    raise Failure("unresolvable", "%s failed (pip exit %d); pip's own words are in the log" % (what, rc), python=python)


def file_release(filename):
    """(normalised name, version) a wheel's or sdist's file name stands for, or None."""
    if filename.endswith(".whl"):
        parts = filename[:-4].split("-")
        return (normalise(parts[0]), parts[1]) if len(parts) >= 5 else None
    for ext in (".tar.gz", ".zip", ".tar.bz2", ".tgz"):
        if filename.endswith(ext):
            name, _, version = filename[:-len(ext)].rpartition("-")
            return (normalise(name), version) if name else None
    return None


def fetch_as_reported(items, files):
    """The files pip's dry run chose (its report's download_info: their URL and sha256) put into
    FILES as they are; the report's items that could not be, for `pip download`. `pip download`
    prepares an sdist's metadata again, and a backend without that hook builds it whole a second
    time: megablocks 0.10.0's numpy<2.1.0 has no wheel for Python 3.13, so numpy 2.0.2's sdist was
    built by the dry run and again by the download, past the step's time limit."""
    left = []
    os.makedirs(files, exist_ok=True)
    for item in items:
        info = item.get("download_info") or {}
        url = info.get("url", "")
        name = urllib.parse.unquote(urllib.parse.urlsplit(url).path.rsplit("/", 1)[-1])
        hashes = (info.get("archive_info") or {}).get("hashes") or {}
        path = os.path.join(files, name)
        try:
            if not name or not file_release(name):
                left.append(item)
            elif url.startswith("file:"):  # a find-links folder or a local index: the file as it is
                if not os.path.isfile(path):
                    fd, tmp = tempfile.mkstemp(dir=files, prefix="." + name + ".")
                    os.close(fd)
                    try:
                        shutil.copyfile(urllib.request.url2pathname(urllib.parse.urlsplit(url).path), tmp)
                        os.replace(tmp, path)
                    finally:
                        if os.path.exists(tmp):
                            os.unlink(tmp)
            elif hashes.get("sha256"):
                if not fetch_pypi.in_cache(path, hashes["sha256"]):
                    fetch_pypi.download({"url": url, "sha256": hashes["sha256"], "filename": name}, path)
            else:
                left.append(item)
        except (OSError, fetch_pypi.Failure) as e:
            log("%s: fetching it as pip's report names it failed (%s); pip downloads it instead" % (name, e))
            left.append(item)
    return left


def resolved_by_metadata(requirements, constraints, report, cache, files):
    """(pip's install items, those left to download) as install_plan.py's RESOLVER resolves them
    against metadata_index.py, reading each candidate's METADATA alone, and its files fetched as
    the report names them while that index (which redirects to them) is up; (None, None) where it
    cannot resolve them. The runtime's own pip (23 in the PyPI runtimes) downloads every candidate
    it backtracks through in full: deepmd-kit[torch]'s requirements next to torch 2.15 (vesin[torch],
    nvalchemi-toolkit-ops, each version pinning another torch) ran past the step's 15 minutes."""
    from install_plan import resolver_pip  # install_plan imports this module
    from metadata_index import MetadataIndex
    if os.environ.get("PIP_NO_INDEX", "").lower() in ("1", "true", "yes", "on"):
        return None, None  # pip is told to use no index: the metadata index would be one
    fast = resolver_pip(cache)
    if fast is None:
        return None, None
    with MetadataIndex(cache) as index:
        at = ["--index-url", index.url, "--trusted-host", "127.0.0.1"]
        rc, _ = run(fast[0] + ["install", "--dry-run", "--quiet", "--report", report, "-c", constraints] + at +
                    requirements, timeout=SOURCE_BUILD_BOUND_S)
        if rc == TIMED_OUT:
            wheel_less = without_wheel(requirements, constraints, fast[0], at)
            if wheel_less:
                raise Failure("unresolvable", source_build_past_bound(wheel_less, "%d.%d" % sys.version_info[:2]),
                              python="%d.%d" % sys.version_info[:2])
        if rc != 0:
            return None, None
        with open(report) as f:
            items = json.load(f).get("install", [])
        return items, fetch_as_reported(items, files)


def fetch(requirements, what, cache, pins=None, backends=True):
    """Resolves REQUIREMENTS against the cell's packages (torch family pinned: PINS, else
    torch_family_pins()) and downloads what is missing into CACHE/<key>/; (that folder,
    [{name, version, file}], cached). With BACKENDS, the build requirements of those that come as
    sdists are fetched too (sdist_backends), for resolved.json's "build_install"."""
    pins = torch_family_pins() if pins is None else pins
    folder = os.path.join(cache, cache_key(requirements, pins))
    resolved = os.path.join(folder, "resolved.json")
    if os.path.isfile(resolved):
        with open(resolved) as f:
            kept = json.load(f)
        # A set resolved before sdists' backends were kept ("build_install") is resolved again.
        kept_backends = "build_install" in kept or not backends or all(i["file"].endswith(".whl") for i in kept["install"])
        if kept_backends and all(os.path.isfile(os.path.join(folder, i["file"]))
                                 for i in kept["install"] + kept.get("build_install", [])):
            log("resolved before, files in %s: no network needed" % folder)
            return folder, kept["install"], True
    os.makedirs(folder, exist_ok=True)
    constraints = os.path.join(folder, "constraints.txt")
    write_atomic(constraints, "".join(p + "\n" for p in pins))
    files = os.path.join(cache, "files")  # shared by every requirement set: pip download skips what is there
    # The report is this process's own: two cells resolving the same set at once (rotary-emb and
    # mpi4torch beside PyPI's torch 2.15, both lacking packaging) shared one report.json, and the
    # one that read it last fetched from the other's index, gone by then ("Connection refused").
    with tempfile.TemporaryDirectory(prefix=".report-", dir=folder) as own:
        report = os.path.join(own, "report.json")
        items, left = resolved_by_metadata(requirements, constraints, report, cache, files)
        if items is None:
            # Where that pip cannot resolve them (or cannot be had), the runtime's own pip says why.
            rc, text = run(PIP + ["install", "--dry-run", "--quiet", "--report", report, "-c", constraints] + requirements)
            if rc != 0:
                refuse(rc, text, "resolving " + what, requirements, constraints)
            with open(report) as f:
                items = json.load(f).get("install", [])
            left = fetch_as_reported(items, files)
    install_list = [{"name": normalise(i["metadata"]["name"]), "version": i["metadata"]["version"]} for i in items]
    if left:
        rc, text = run(PIP + ["download", "--no-deps", "--quiet", "-d", files] +
                       ["%s==%s" % (normalise(i["metadata"]["name"]), i["metadata"]["version"]) for i in left])
        if rc != 0:
            refuse(rc, text, "downloading " + ", ".join(normalise(i["metadata"]["name"]) for i in left))
    names = os.listdir(files) if os.path.isdir(files) else []
    accepted = interpreter_tags() or []
    for i in install_list:
        match = [n for n in names if file_release(n) == (i["name"], i["version"])]
        # The shared folder may hold the release's wheels for other Pythons (other runtimes'):
        # this interpreter's best, as pip chose it; else its one file (an sdist).
        wheel = best_wheel([n for n in match if n.endswith(".whl")], accepted)
        chosen = wheel[0] if wheel else next((n for n in match if not n.endswith(".whl")), "")
        i["file"] = os.path.relpath(os.path.join(files, chosen), folder) if chosen else ""
    if any(not i["file"] for i in install_list):
        raise Failure("internal", "pip download left no file for %s in %s" % (
            ", ".join(i["name"] for i in install_list if not i["file"]), files))
    kept = {"requirements": requirements, "pins": pins, "install": install_list}
    if backends:
        kept["build_install"] = sdist_backends(folder, install_list, cache, pins)
    write_atomic(resolved, json.dumps(kept, indent=1))
    return folder, install_list, False


def sdist_pyproject(path):
    """The bytes of an sdist's top-level pyproject.toml (TOP/pyproject.toml), b"" without one."""
    try:
        if path.endswith(".zip"):
            with zipfile.ZipFile(path) as z:
                names = [n for n in z.namelist() if n.count("/") == 1 and n.endswith("/pyproject.toml")]
                return z.read(names[0]) if names else b""
        with tarfile.open(path) as t:
            member = next((m for m in t.getmembers() if m.isfile() and m.name.count("/") == 1
                           and m.name.endswith("/pyproject.toml")), None)
            return t.extractfile(member).read() if member else b""
    except (tarfile.TarError, zipfile.BadZipFile, EOFError, OSError):
        return b""  # pip names an unreadable archive in its own words where it installs it


def sdist_backends(folder, install_list, cache, pins):
    """The build requirements ([build-system].requires) of the requirements that come as sdists,
    those the cell lacks, fetched: [{name, version, file (relative to FOLDER)}]. The install step
    builds such a requirement offline without isolation, where pip finds its backend
    (meson-python, hatchling, flit-core, setuptools-scm) only if it is there: a user's isolated
    build would have fetched it."""
    Requirement = packaging()[0]
    wanted_backends = []
    for i in install_list:
        if i["file"].endswith(".whl"):
            continue
        declared = build_requires.declared_in(sdist_pyproject(os.path.join(folder, i["file"])))
        for r in build_requires.lacking(declared, Requirement, lambda name: TORCH_FAMILY.match(normalise(name))):
            if r not in wanted_backends:
                wanted_backends.append(r)
    if not wanted_backends:
        return []
    what = "the build requirements of the requirements' sdists (%s)" % ", ".join(wanted_backends)
    log("fetching " + what)
    sub, backend_list, _ = fetch(wanted_backends, what, cache, pins, backends=False)
    return [dict(b, file=os.path.relpath(os.path.join(sub, b["file"]), folder)) for b in backend_list]


def resolve(args):
    # A requirement dropped since the last run must not linger on the later steps' PYTHONPATH.
    shutil.rmtree(os.path.join(args.build, "deps"), ignore_errors=True)
    shutil.rmtree(os.path.join(args.build, SDIST_BACKENDS), ignore_errors=True)
    shutil.rmtree(os.path.join(args.build, build_requires.REQUIREMENT_FILES), ignore_errors=True)
    backend, backend_bytes = [], 0
    if args.kind == "wheel":
        requires = wheel_requires(args.source)
        src = None
    elif args.kind == "cmake":
        requires, src = [], args.source
    else:
        requires, backend, backend_bytes = source_requires(args.source, args.build, args.cache)
        src = os.path.join(args.build, "src")
    extra = []
    left_out = []
    if args.tests:
        extra.append("pytest")
        if src:
            files, skipped = requirement_files(src)
            extra += files + dependency_groups(src)
            left_out += [{"requirement": s, "why": "a pip option in a requirements file, not a requirement"} for s in skipped]
    extra += args.require
    pins = torch_family_pins()
    # The extra that holds the library's torch side, where torch is required only there: its users
    # install it (deepmd-kit[torch]), and its torch side needs what it brings.
    extra_name = torch_extra(requires)
    requirements, more = wanted(requires, args.tests, extra, {pin.split("==")[0] for pin in pins},
                                [extra_name] if extra_name else [])
    left_out += more
    out = {"ok": True, "requirements": requirements, "left_out": left_out, "install": [], "resolved": "", "cached": False,
           "build_requires": backend, "download_bytes": backend_bytes}
    if extra_name:
        out["torch_extra"] = extra_name
    if not requirements:
        return out
    folder, install_list, cached = fetch(requirements, ", ".join(requirements), args.cache, pins)
    resolved = os.path.join(folder, "resolved.json")
    with open(resolved) as f:
        sdist_backend_list = json.load(f).get("build_install", [])
    if sdist_backend_list:
        out["sdist_build_requires"] = ["%s==%s" % (i["name"], i["version"]) for i in sdist_backend_list]
    return dict(out, install=install_list, resolved=resolved, cached=cached,
                download_bytes=backend_bytes + files_bytes(folder, install_list + sdist_backend_list))


def install_files(files, target, what, base=None):
    """pip install --no-index --no-deps FILES into TARGET (emptied first), in environment BASE."""
    shutil.rmtree(target, ignore_errors=True)
    rc, text = run(PIP + ["install", "--no-index", "--no-deps", "--no-build-isolation", "--no-compile", "--target",
                          target] + files, base)
    if rc != 0:
        errors = [l.strip() for l in text.splitlines() if l.startswith("ERROR")]
        raise Failure("install_failed", "pip install --no-deps of %s failed (exit %d)%s" % (
            what, rc, ": " + " ".join(errors[-2:]) if errors else "; its output is in the log"))


# A wheel's shared libraries in its data scheme ("tbb-2023.2.0.data/data/lib/libtbb.so.12"): pip
# puts them in the environment's lib folder (<venv>/lib), beside lib/pythonX.Y/site-packages; with
# the folders under it they find theirs through (mpich 5.0.2's libmpi.so.12 has RUNPATH
# $ORIGIN/mpich, where its own libfabric.so.1 is: without it, the system's older one is taken).
DATA_LIBRARY = re.compile(r"^[^/]+\.data/data/lib/(?P<path>(?:[^/]+/)*[^/]+\.so(\.[0-9]+)*)$")


def install_data_libraries(files, prefix):
    """`pip install --target` keeps no data-scheme lib folder: the shared libraries a wheel has there
    are put in PREFIX/lib, in their folders, as pip puts them in <venv>/lib for a user (fairseq2n
    loads tbb's libtbb.so.12 from there, or by name), and later steps find them by name
    (LD_LIBRARY_PATH). Returns their paths under PREFIX/lib."""
    shutil.rmtree(prefix, ignore_errors=True)
    kept = []
    for wheel in (f for f in files if f.endswith(".whl")):
        with zipfile.ZipFile(wheel) as z:
            for member in z.namelist():
                m = DATA_LIBRARY.match(member)
                if not m:
                    continue
                target = os.path.join(prefix, "lib", m.group("path"))
                os.makedirs(os.path.dirname(target), exist_ok=True)
                with z.open(member) as src, open(target, "wb") as out:
                    shutil.copyfileobj(src, out)
                kept.append(m.group("path"))
    return sorted(kept)


def record_data_libraries(deps, prefix, paths):
    """Points the installed RECORD entries of the data-scheme libraries PATHS (under PREFIX/lib) at
    where install_data_libraries put them. pip --target recorded them where its temporary home had
    them (mpich 5.0.2: "../libmpi.so.12", outside DEPS, a file that is nowhere), and a package that
    finds a requirement's library through its metadata (deepmd-kit's deepmd.pt:
    metadata.files("mpich") ... .locate(), then CDLL) must find the file its users have."""
    for record in (os.path.join(deps, d, "RECORD") for d in sorted(os.listdir(deps)) if d.endswith(".dist-info")):
        if not os.path.isfile(record):
            continue
        with open(record, encoding="utf-8") as f:
            lines = f.read().splitlines(True)
        changed = False
        for i, line in enumerate(lines):
            path, sep, rest = line.partition(",")
            if sep and path.startswith("../") and path[len("../"):] in paths:
                lines[i] = os.path.relpath(os.path.join(prefix, "lib", path[len("../"):]), deps) + sep + rest
                changed = True
        if changed:
            write_atomic(record, "".join(lines))


def link_requirement_files(files, folder):
    """FOLDER (emptied first) holds a link to each file the project's requirements were installed
    from: the pip a legacy setup.py runs while it builds (setuptools fetching its setup_requires)
    finds them there, as a user's finds them on PyPI (build_requires.env)."""
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    for f in files:
        os.symlink(os.path.abspath(f), os.path.join(folder, os.path.basename(f)))


def install(args):
    with open(args.resolved) as f:
        kept = json.load(f)
    folder = os.path.dirname(args.resolved)
    deps = os.path.join(args.build, "deps")
    files = [os.path.join(folder, i["file"]) for i in kept["install"]]
    install_files(files, deps, "the project's requirements", sdist_backend_env(folder, kept, args.build))
    link_requirement_files(files, os.path.join(args.build, build_requires.REQUIREMENT_FILES))
    out = {"ok": True, "installed": ["%s==%s" % (i["name"], i["version"]) for i in kept["install"]], "deps": deps}
    libraries = install_data_libraries(files, os.path.join(args.build, "deps-data"))
    if libraries:
        record_data_libraries(deps, os.path.join(args.build, "deps-data"), set(libraries))
        out["data_libraries"] = libraries
    return out


def sdist_backend_env(folder, kept, build):
    """The environment pip builds the requirements' sdists in: their build requirements
    (resolved.json's "build_install") installed into BUILD/deps-backends, first on PYTHONPATH and
    PATH, where pip's build without isolation finds the backend. None where none is needed."""
    backend_files = [os.path.join(folder, i["file"]) for i in kept.get("build_install", [])]
    if not backend_files:
        return None
    target = os.path.join(build, SDIST_BACKENDS)
    install_files(backend_files, target, "the build requirements of the requirements' sdists")
    return build_requires.on_path(target)


class Parser(argparse.ArgumentParser):
    def error(self, message):
        raise Failure("usage", "requirements.py: %s" % message)


def main():
    parser = Parser(prog="requirements.py")
    sub = parser.add_subparsers(dest="command")
    r = sub.add_parser("resolve")
    r.add_argument("--kind", required=True, choices=["setuptools", "sdist", "wheel", "cmake"])
    r.add_argument("--source", required=True)
    r.add_argument("--build", required=True)
    r.add_argument("--cache", required=True)
    r.add_argument("--tests", action="store_true")
    r.add_argument("--require", action="append", default=[])
    i = sub.add_parser("install")
    i.add_argument("--resolved", required=True)
    i.add_argument("--build", required=True)
    try:
        args = parser.parse_args()
        if args.command not in ("resolve", "install"):
            raise Failure("usage", "requirements.py: resolve or install")
        out = resolve(args) if args.command == "resolve" else install(args)
    except Failure as e:
        log(e.out["message"])
        print(json.dumps(e.out))
        return 1
    except Exception as e:  # noqa: BLE001 - the harness needs JSON, not a traceback
        import traceback
        traceback.print_exc()
        print(json.dumps({"ok": False, "error": "internal", "message": "%s: %s" % (type(e).__name__, e)}))
        return 1
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
