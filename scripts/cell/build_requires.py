"""A source project's build requirements ([build-system].requires of its pyproject.toml) as the
cell's `pip wheel --no-build-isolation` needs them.

A user's `pip install .` builds in an isolated environment that pip fills with the project's
build requirements; the cell builds without isolation (against the cell's own torch, offline),
so a backend the cell lacks (scikit-build-core, meson-python, hatchling) or a build tool the
project pins (pybind11, cmake, ninja from PyPI) would fail the build for a reason no user meets.
The requirements step (network) fetches those the cell's Python lacks and installs them into
BUILD/build-deps, which the metadata and build steps put on PYTHONPATH (and its bin/ on PATH).
The torch family is never among them: the cell's torch is the one being judged."""
import os

BUILD_DEPS = "build-deps"
# Links to the files the project's requirements were installed from (requirements.py).
REQUIREMENT_FILES = "deps-files"


# What the newest setuptools lets the setup.py it runs import undeclared: from 71.0 on it appends
# its own _vendor folder to sys.path as it is imported, and pip's build backend imports it before
# setup.py runs. A user's isolated build gets the newest setuptools, so rotary-emb 0.5.2's
# undeclared `from packaging.version import parse` works there; the cell keeps its image's own
# setuptools (older torches' cpp_extension need what newer ones dropped), bookworm's 66.1.1 in the
# PyPI images, which puts nothing there: the cell gets packaging as a build requirement instead.
# (wheel, vendored too, every cell image has.)
SETUPTOOLS_VENDORED = ("packaging",)


def build_system(src):
    """[build-system] of SRC/pyproject.toml ({} without one or where it cannot be read)."""
    path = os.path.join(src, "pyproject.toml")
    if not os.path.isfile(path):
        return {}
    with open(path, "rb") as f:
        return build_system_in(f.read())


def build_system_in(pyproject):
    """[build-system] of a pyproject.toml's bytes ({} where it cannot be read: pip names an
    unreadable one in its own words where it builds)."""
    try:
        import tomllib
    except ImportError:  # Python < 3.11: pip's vendored reader
        from pip._vendor import tomli as tomllib
    try:
        table = tomllib.loads(pyproject.decode("utf-8")).get("build-system", {})
    except (tomllib.TOMLDecodeError, UnicodeDecodeError):
        return {}
    return table if isinstance(table, dict) else {}


def declared(src):
    """[build-system].requires of SRC/pyproject.toml ([] without one; PEP 518's default is
    setuptools and wheel, which the cell has)."""
    return requires_of(build_system(src))


def declared_in(pyproject):
    """[build-system].requires of a pyproject.toml's bytes."""
    return requires_of(build_system_in(pyproject))


def requires_of(table):
    requires = table.get("requires", [])
    return [r for r in requires if isinstance(r, str)] if isinstance(requires, list) else []


def backend_provides(src):
    """What the project's build backend gives its setup.py beyond what it declares: the newest
    setuptools' vendored modules (SETUPTOOLS_VENDORED) where setuptools builds it (no
    [build-system] table, or no build-backend, or setuptools.build_meta's)."""
    backend = build_system(src).get("build-backend", "setuptools.build_meta")
    return list(SETUPTOOLS_VENDORED) if str(backend).startswith("setuptools.build_meta") else []


def satisfied(requirement, Requirement):
    """Whether the cell's Python already has a distribution that meets `requirement`."""
    from importlib import metadata
    req = Requirement(requirement)
    if req.marker is not None and not req.marker.evaluate():
        return True  # another platform's or Python's: pip would not install it either
    try:
        version = metadata.version(req.name)
    except metadata.PackageNotFoundError:
        return False
    return req.specifier.contains(version, prereleases=True)


def missing(src, Requirement, is_torch_family):
    """The build requirements the cell lacks, less the torch family: as declared, and what the
    newest build backend gives setup.py besides (backend_provides)."""
    requires = declared(src)
    names = set()
    for text in requires:
        try:
            names.add(Requirement(text).name.lower())
        except Exception:  # noqa: BLE001 - lacking() leaves it to pip as well
            pass
    return lacking(requires + [r for r in backend_provides(src) if r not in names], Requirement, is_torch_family)


def lacking(requires, Requirement, is_torch_family):
    """Those of the build requirements REQUIRES the cell lacks, less the torch family."""
    out = []
    for text in requires:
        try:
            req = Requirement(text)
        except Exception:  # noqa: BLE001 - pip names an unreadable one in the build step's log
            continue
        if not is_torch_family(req.name) and not satisfied(text, Requirement):
            out.append(text)
    return out


def on_path(folder, base=None):
    """The environment BASE (else this process's) with FOLDER, a `pip install --target` folder,
    first on PYTHONPATH and its bin/ first on PATH."""
    e = dict(os.environ if base is None else base)
    e["PYTHONPATH"] = os.pathsep.join(p for p in (folder, e.get("PYTHONPATH", "")) if p)
    e["PATH"] = os.pathsep.join(p for p in (os.path.join(folder, "bin"), e.get("PATH", "")) if p)
    return e


def env(build, base=None):
    """The environment a build of the project in BUILD runs in: BUILD/build-deps (when there)
    first on PYTHONPATH, its bin/ first on PATH; and for any pip the build runs, the files of the
    project's requirements as its only index (PIP_FIND_LINKS, PIP_NO_INDEX): a legacy setup.py's
    setup_requires (horovod 0.28.1's `setup_requires=require_list`, its install requirements with
    cffi) are fetched by setuptools with `pip wheel` while it builds, from PyPI for a user; the cell
    builds offline, and those files are what PyPI gave the requirements step."""
    deps = os.path.join(build, BUILD_DEPS)
    e = on_path(deps, base) if os.path.isdir(deps) else dict(os.environ if base is None else base)
    files = os.path.join(build, REQUIREMENT_FILES)
    if os.path.isdir(files):
        e["PIP_FIND_LINKS"], e["PIP_NO_INDEX"] = files, "1"
    return e
