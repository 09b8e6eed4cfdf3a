"""Check `abi3`: does a wheel that claims CPython's stable ABI (a `cpXY-abi3` tag, or extension
modules named `*.abi3.so`, what setuptools' `py_limited_api=True` makes) keep the claim?

    limited_api.py LIBRARY...      (libraries unused; reads $OPMATRIX_BUILD/wheel/*.whl)

One wheel then installs on every CPython from XY on, so each of its native libraries must be
usable by all of them:
- subtest `tag`: the wheel's tag and its modules' names agree. An `.abi3.so` module in a
  `cp311-cp311` wheel means pip installs it for one Python only (bdist_wheel was not told
  `py_limited_api`); a `.cpython-310-…so` file in an abi3 wheel is built for one Python and
  cannot be imported as a module by any other. Both are notes (skip), not limits: the first
  costs nobody anything (pip installs the wheel where its tag says, as for any per-Python
  wheel), and what the second costs, the load check measures (the package's import fails where
  it imports that module by name; torch.ops.load_library by path loads it in any Python).
- subtest `links`: no native library links `libtorch_python.so` (compiled against one Python's
  full, unstable API: torch's own py_limited_api build leaves it out) or pybind11, which is not
  limited-API code.
The Python this cell runs is in the message, with the wheel's sha256: the same file passing in
cells with two Python versions is the evidence that one wheel serves both.
Prints {"checks": [...]} as script checks do; never raises."""
import functools
import os
import re
import zipfile

from abi_surface import needed, split_version, tool
from fetch_pypi import sha256_of
from script_check import result, run
from wheel_metadata import metadata

CHECK = "abi3"
VERSIONED_MODULE = re.compile(r"\.cpython-(\d)(\d+)[^/]*\.so$")
FULL_API_LIBRARY = re.compile(r"^libtorch_python\.so")


def native_libraries(names):
    return sorted(n for n in names if n.endswith(".so") or ".so." in n.rsplit("/", 1)[-1])


def abi3_floor(tags):
    """'cp310' of the first `cp310-abi3-*` tag, or None when no tag is abi3."""
    for t in tags:
        interpreter, abi, _ = t.split("-", 2)
        if abi == "abi3":
            return interpreter
    return None


def tag_problems(floor, tags, libraries):
    abi3_modules = [n for n in libraries if n.endswith(".abi3.so")]
    if floor:
        versioned = [n for n in libraries if VERSIONED_MODULE.search(n)]
        return ["%s is built for CPython %s.%s only, inside a wheel pip installs on every CPython from %s on: "
                "no other Python imports it as a module (loading it by path, as torch.ops.load_library does, still "
                "works)" % (n, *VERSIONED_MODULE.search(n).groups(), floor)
                for n in versioned]
    return ["%s is a limited-API module, but the wheel is tagged %s: pip installs it for that Python only "
            "(bdist_wheel was not given py_limited_api)" % (n, ", ".join(tags) or "without tags")
            for n in abi3_modules]


def undefined(nm_output):
    return [split_version(parts[1])[0] for parts in (line.split() for line in nm_output.splitlines())
            if len(parts) == 2 and parts[0] == "U"]


@functools.lru_cache(maxsize=None)
def torch_python_exports():
    """What the cell's own libtorch_python.so defines (empty when there is none to read)."""
    try:
        import torch
    except ImportError:
        return frozenset()
    path = os.path.join(os.path.dirname(torch.__file__), "lib", "libtorch_python.so")
    if not os.path.exists(path):
        return frozenset()
    text = tool(["nm", "-D", "--defined-only", path])
    return frozenset(split_version(line.split()[-1])[0] for line in text.splitlines() if line.strip())


def link_problems(folder, libraries):
    out = []
    for name in libraries:
        path = os.path.join(folder, name)
        symbols = tool(["nm", "-D", path])
        full = [n for n in needed(path) if FULL_API_LIBRARY.match(n)]
        if full:
            used = sorted(set(undefined(symbols)) & torch_python_exports()) if torch_python_exports() else None
            out.append("%s links %s, which is compiled against one Python's full API%s" % (
                name, full[0], "" if used is None else
                " (it uses none of its symbols: a needless link, harmless where torch is installed)" if not used else
                " and uses %d of its symbols (e.g. %s): it works only with the Python torch was built for" % (
                    len(used), used[0])))
        if "_ZN8pybind11" in symbols:
            out.append("%s holds pybind11 code, which is not limited-API code" % name)
    return out


def report(build):
    folder = os.path.join(build, "wheel")
    wheels = sorted(f for f in os.listdir(folder) if f.endswith(".whl")) if os.path.isdir(folder) else []
    if not wheels:
        return [result(CHECK, "skip", "not a wheel build (a CMake project or kernels/)")]
    import platform
    python = "CPython " + ".".join(platform.python_version_tuple()[:2])
    checks = []
    for w in wheels:
        path = os.path.join(folder, w)
        tags, _ = metadata(path)
        with zipfile.ZipFile(path) as z:
            libraries = native_libraries(z.namelist())
            floor = abi3_floor(tags)
            if not floor and not any(n.endswith(".abi3.so") for n in libraries):
                checks.append(result(CHECK, "skip", "%s does not claim the limited API (tags %s)" % (
                    w, ", ".join(tags) or "none")))
                continue
            unpacked = os.path.join(build, "abi3-check", w)
            z.extractall(unpacked, members=libraries)
        where = "%s (sha256 %s) in %s" % (w, sha256_of(path)[:12], python)
        # links: only where the tag claims abi3 (a per-Python wheel may link that Python's API).
        for subtest, problems, fix in (
                ("tag", tag_problems(floor, tags, libraries),
                 "build every extension with py_limited_api=True and the wheel with "
                 "options={'bdist_wheel': {'py_limited_api': 'cp39'}}, or drop the abi3 claim"),
                ("links", link_problems(unpacked, libraries) if floor else None,
                 "build with torch.utils.cpp_extension's py_limited_api=True (it leaves libtorch_python out), "
                 "register ops with TORCH_LIBRARY instead of pybind11, or ship per-Python wheels")):
            if problems is None:
                continue
            if problems and subtest == "tag":
                checks.append(result(CHECK, "skip", "%s: a note, not a limit (the load check judges what it costs): "
                                     "%s%s; to claim the stable ABI: %s" % (
                                         where, problems[0], " (+%d more)" % (len(problems) - 1)
                                         if len(problems) > 1 else "", fix), subtest=subtest))
            elif problems:
                message = "%s: %s%s" % (where, problems[0], " (+%d more)" % (len(problems) - 1) if len(problems) > 1 else "")
                checks.append(result(CHECK, "fail", message, kind="not_limited_api", subtest=subtest,
                                     summary="the wheel claims CPython's stable ABI but " + problems[0], fix=fix,
                                     evidence="; ".join(problems)))
            else:
                what = ("tag %s-abi3, %d native librar%s named for every Python" % (
                    floor, len(libraries), "y" if len(libraries) == 1 else "ies")) if subtest == "tag" else \
                    "no libtorch_python, no pybind11 in %d native librar%s" % (
                        len(libraries), "y" if len(libraries) == 1 else "ies")
                checks.append(result(CHECK, "pass", "%s: %s" % (where, what), subtest=subtest))
    return checks


if __name__ == "__main__":
    run(CHECK, lambda: report(os.environ.get("OPMATRIX_BUILD", "")))
