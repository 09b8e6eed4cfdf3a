"""Check `wheel`: what the wheel a setup.py/pyproject project built says about itself, against
the cell it was built in: its tags (python, ABI, platform) and its torch requirement.

    wheel_metadata.py LIBRARY...      (libraries unused; reads $OPMATRIX_BUILD/wheel/*.whl)

A requirement the cell's own torch does not satisfy means pip refuses the wheel here, or
swaps torch under the user. Prints {"checks": [...]} as script checks do; never raises."""
import os
import re
import sys
import zipfile

from script_check import result, run, torch_version

CHECK = "wheel"


def metadata(wheel):
    tags, requires = [], []
    with zipfile.ZipFile(wheel) as z:
        for name in z.namelist():
            text = z.read(name).decode("utf-8", "replace") if name.endswith((".dist-info/WHEEL", ".dist-info/METADATA")) else ""
            for line in text.splitlines():
                if name.endswith("/WHEEL") and line.startswith("Tag:"):
                    tags.append(line.split(":", 1)[1].strip())
                elif name.endswith("/METADATA") and line.startswith("Requires-Dist:"):
                    requires.append(line.split(":", 1)[1].strip())
    return tags, requires


# A compiled module for one CPython (name.cpython-310-x86_64-linux-gnu.so): only that Python imports it.
PER_PYTHON_MODULE = re.compile(r"([^/]+)\.cpython-(\d)(\d+)[a-z]*-[^/]*\.so$")


def modules_for_another_python(wheel, tags, running=sys.version_info[:2]):
    """The per-CPython modules inside a wheel tagged for any Python (py3-none-…: uccl
    0.0.1.post4's p2p.cpython-310-x86_64-linux-gnu.so), which the running Python cannot import:
    pip installs the wheel into every Python 3 and the module is not there for any but its own.
    A cpXY wheel says its Python (pip picks it only there), and an abi3 wheel's are the abi3
    check's."""
    if any(t.split("-")[0].startswith("cp") for t in tags):
        return []
    with zipfile.ZipFile(wheel) as z:
        names = z.namelist()
    found = []
    for name in names:
        m = PER_PYTHON_MODULE.search(name)
        if m and (int(m.group(2)), int(m.group(3))) != tuple(running):
            found.append((m.group(0), f"{m.group(2)}.{m.group(3)}"))
    return found


def file_name_tags(wheel):
    """The tags of a wheel's file name (name-version[-build]-python-abi-platform.whl, each part
    possibly a compressed set): the ones pip installs it by."""
    python, abi, platform = os.path.basename(wheel)[:-len(".whl")].split("-")[-3:]
    return ["%s-%s-%s" % (p, a, t) for p in python.split(".") for a in abi.split(".") for t in platform.split(".")]


def torch_requirement(requires):
    """The Requires-Dist line that says which torch the wheel wants: the one that applies to a
    plain install here, else the one of the extra that holds its torch side (deepmd-kit 3.2.0:
    `torch==2.11.0; extra == "torch"`, not its `torch; extra == "dpa-adapt"`); None without one."""
    named = []
    for r in requires:
        bare = r.split(";")[0].strip().replace(" ", "")
        if bare == "torch" or bare.startswith(("torch<", "torch>", "torch=", "torch!", "torch~", "torch(")):
            named.append(r)
    for extra in ["", torch_extra(requires)]:
        for r in named:
            if extra is not None and applies(r, extra):
                return r
    return None


def packaging():
    """(Requirement, InvalidRequirement, default_environment): the packaging module's, else pip's
    vendored copy; ImportError where neither is at hand."""
    try:
        from packaging.markers import default_environment
        from packaging.requirements import InvalidRequirement, Requirement
    except ImportError:
        from pip._vendor.packaging.markers import default_environment
        from pip._vendor.packaging.requirements import InvalidRequirement, Requirement
    return Requirement, InvalidRequirement, default_environment


def applies(requirement, extra):
    """Whether REQUIREMENT's marker holds here for an install with EXTRA ("" for none); True where
    no parser is at hand (as before markers were read)."""
    try:
        Requirement, InvalidRequirement, default_environment = packaging()
    except ImportError:
        return True
    try:
        req = Requirement(requirement)
    except InvalidRequirement:
        return extra == ""
    return req.marker is None or req.marker.evaluate(dict(default_environment(), extra=extra))


# Extras a library's users name for its torch side (deepmd-kit[torch], whatever-lib[pytorch]): one
# named torch, pytorch or pt, or with torch in its name (torch-cpu). Never its test, docs or dev
# extra, which may require torch too (cuequivariance-ops-torch-cu12's `torch; extra == "test"`,
# beside no torch requirement of its own: the [test] extra is what its tests need, not its users).
TORCH_EXTRA_NAMES = ("torch", "pytorch", "pt")


def torch_extra(requires):
    """The extra that holds a library's torch side, where torch is required only under an extra
    named for torch: deepmd-kit 3.2.0 declares `torch==2.11.0; extra == "torch"` beside its
    TensorFlow extras, and its torch side needs what that extra brings (mpich: deepmd.pt loads its
    libmpi.so.12). Its users install `deepmd-kit[torch]`. None where torch is required without an
    extra, or not at all, or only under extras not named for torch."""
    Requirement, InvalidRequirement, _ = packaging()
    torch_in = set()
    for text in requires:
        try:
            req = Requirement(text)
        except InvalidRequirement:
            continue
        if req.name.lower() != "torch":
            continue
        named = set(re.findall(r"""extra\s*==\s*["']([^"']+)["']""", str(req.marker or "")))
        torch_in |= {extra for extra in [""] + sorted(named) if applies(text, extra)}
    if not torch_in or "" in torch_in:
        return None
    named_for_torch = sorted(x for x in torch_in if x.lower() in TORCH_EXTRA_NAMES or "torch" in x.lower())
    return named_for_torch[0] if named_for_torch else None


def satisfied(requirement, version):
    """True/False, or None when no parser is at hand."""
    try:
        from packaging.requirements import Requirement
        from packaging.version import Version
    except ImportError:
        try:
            from pip._vendor.packaging.requirements import Requirement
            from pip._vendor.packaging.version import Version
        except ImportError:
            return None
    req = Requirement(requirement)
    return req.specifier.contains(Version(version.split("+")[0]), prereleases=True)


def report(build):
    folder = os.path.join(build, "wheel")
    wheels = sorted(f for f in os.listdir(folder) if f.endswith(".whl")) if os.path.isdir(folder) else []
    if not wheels:
        return [result(CHECK, "skip", "not a wheel build (a CMake project or kernels/)")]
    checks = []
    version = torch_version()
    for w in wheels:
        inside, requires = metadata(os.path.join(folder, w))
        tags = file_name_tags(w)
        platform = sorted({t.split("-")[-1] for t in tags})
        note = "" if all(p.startswith(("manylinux", "musllinux")) or p == "any" for p in platform) else \
            " (a local platform tag: PyPI takes manylinux wheels only, which auditwheel makes)"
        if inside and sorted(inside) != sorted(tags):
            # PyTorch's own wheels are renamed to manylinux after the build, their WHEEL file not.
            note += " (its WHEEL file says %s: the file was renamed after the build)" % ", ".join(inside)
        foreign = modules_for_another_python(os.path.join(folder, w), tags)
        if foreign:
            here = "%d.%d" % sys.version_info[:2]
            module, python = foreign[0]
            message = (f"{module.split('/')[-1]} is a module only CPython {python} imports, and this Python {here} "
                       f"cannot import it" + (f" (+{len(foreign) - 1} more)" if len(foreign) > 1 else "") +
                       f": its wheel {w} is tagged {', '.join(tags)}, for any Python 3")
            # Subtest `tag`: measured here (what this Python imports), not what the wheel declares.
            checks.append(result(CHECK, "fail", message, kind="module_for_another_python",
                                 summary=message + ", though pip installs the wheel here",
                                 fix=f"for the library: tag the wheel cp{python.replace('.', '')}-"
                                     f"cp{python.replace('.', '')} (or build it per Python, or with the limited API "
                                     f"as .abi3.so), so that pip installs it only where its modules import; for its "
                                     f"users: CPython {python}",
                                 evidence="\n".join(m for m, _ in foreign), subtest="tag"))
        req = torch_requirement(requires)
        ok = satisfied(req, version) if req else True
        if req and ok is False:
            message = f"{w} requires {req}, but this cell's torch is {version}"
            checks.append(result(CHECK, "fail", message, kind="torch_requirement",
                                 summary=message + ": pip refuses the wheel here, or replaces the torch",
                                 fix="expect this cell to fail (the library does not support this torch), or widen "
                                     "the requirement if it does",
                                 evidence="Requires-Dist: " + req))
            continue
        what = f"requires {req} (met by torch {version})" if req else "declares no torch requirement"
        if req and ok is None:
            what = f"requires {req} (not checked: no packaging module here)"
        checks.append(result(CHECK, "pass", f"{w}: tags {', '.join(tags) or 'none'}{note}; {what}"))
    return checks


if __name__ == "__main__":
    run(CHECK, lambda: report(os.environ.get("OPMATRIX_BUILD", "")))
