"""Check `duplicate_extension`: one Python extension module built twice in one folder under
different suffixes (`_C.cpython-310-x86_64-linux-gnu.so` next to `_C.abi3.so`). Python imports
the first suffix in `importlib.machinery.EXTENSION_SUFFIXES` order, so a stale build can
shadow the fresh one and fail with an undefined symbol (pytorch/ao #1981).

    duplicate_extensions.py LIBRARY...

Looks in each library's folder, in $OPMATRIX_BUILD and in $OPMATRIX_PROJECT_DIR (recursively).
Prints {"checks": [...]} as the harness's script checks read it; never raises."""
import importlib.machinery
import os
import re
import sys

from script_check import result, run

CHECK = "duplicate_extension"
# module name, then one of the suffixes Python gives extension modules on Linux.
EXTENSION = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)(\.cpython-\d+[a-z]*-[A-Za-z0-9_-]+\.so|\.abi3\.so|\.so)$")
SKIP_DIRS = {".git", "__pycache__", "CMakeFiles", "node_modules"}


def extension_files(folder, recursive):
    """{(folder, module): [suffix, ...]} for the extension modules under folder."""
    found = {}
    walker = os.walk(folder) if recursive else [(folder, [], os.listdir(folder))]
    for root, dirs, files in walker:
        dirs[:] = [d for d in dirs if d not in SKIP_DIRS]
        for name in files:
            m = EXTENSION.match(name)
            if m and not name.startswith("lib"):
                found.setdefault((root, m.group(1)), set()).add(m.group(2))
    return found


def imported_suffix(suffixes):
    for s in importlib.machinery.EXTENSION_SUFFIXES:
        if s in suffixes:
            return s
    return None


def report(libraries, build, project):
    found = {}
    places = [(os.path.dirname(os.path.abspath(lib)), False) for lib in libraries]
    places += [(p, True) for p in (build, project) if p]
    for folder, recursive in places:
        if os.path.isdir(folder):
            for key, suffixes in extension_files(folder, recursive).items():
                found.setdefault(key, set()).update(suffixes)
    checks = []
    for (folder, module), suffixes in sorted(found.items()):
        if len(suffixes) < 2:
            continue
        files = sorted(module + s for s in suffixes)
        wins = imported_suffix(suffixes)
        winner = f"this Python ({sys.version.split()[0]}) imports {module + wins}" if wins else \
            "this Python imports none of them"
        message = f"{module} exists {len(files)} times in {folder}: {', '.join(files)}; {winner}"
        checks.append(result(CHECK, "fail", message, kind="duplicate_extension",
                             summary=message + "; whichever is stale can be the one imported, here or under another Python",
                             fix="delete the stale builds (keep the one your build makes) and clean the build folder "
                                 "before packaging",
                             evidence=", ".join(os.path.join(folder, f) for f in files)))
    if not checks:
        if not found and not libraries:
            checks.append(result(CHECK, "skip", "no built library to look beside"))
        else:
            checks.append(result(CHECK, "pass", f"{len(found)} extension module(s), none built twice"))
    return checks


if __name__ == "__main__":
    run(CHECK, lambda: report(sys.argv[1:], os.environ.get("OPMATRIX_BUILD", ""), os.environ.get("OPMATRIX_PROJECT_DIR", "")))
