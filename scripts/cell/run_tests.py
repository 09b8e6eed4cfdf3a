"""Runs a project's own command (its `smoke:` or its `tests:`) against the library as built and
installed in the cell, never against its source folder.

    run_tests.py --source SRC --tree TREE [--site SITE] [--junit FILE] -- ARGV...

SRC (read-only; "" for none) is copied to TREE, and every top-level package or module the
installed library has in SITE (the folder its wheel was installed into) is left out of the copy:
Python puts the working folder (and pytest its rootdir) first on sys.path, so a package folder at
the repository's root would be imported instead of the installed one, without its built
extension. The library's conftest.py, test folders, data files and pytest configuration stay
where they were, so its relative imports and fixtures work as on the maintainer's machine (the
way tox tests an installed package). ARGV runs in TREE.

Without --junit the command's exit status is this script's (the smoke). With --junit a pytest
command gets --junitxml=FILE and --continue-on-collection-errors (a test file that cannot be
imported does not stop the files that can; any other command may write JUnit XML to
$OPMATRIX_JUNIT_XML), and stdout's last line is one JSON object: {"ok": true, "exit_code",
"junit": bool, "argv", "counts": {passed, failed, error, skipped, not_collected}, "tests": [{"id",
"outcome", "message"}], "collection_errors": [{"file", "module", "own", "top_installed", "message"}]}, ids as pytest
names them (path::Class::test); exit 0 whenever the tests ran, passed or not.

A collection error is a test file pytest could not import (a testcase with <error
message="collection failure">): it is no test, so it is left out of "tests" and counted as
not_collected. "module" is the module its import lacked ("No module named 'cv2'"; "" when the
error is another), "own" whether that module is the library's or the suite's own (the installed
library's names, a file or folder of the tree beside the test file or above it), not something
the cell lacks, and "top_installed" whether the cell has the top of a dotted one it lacks."""
import argparse
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET

from build_wheel import copy_tree

SKIP_IN_SITE = ("bin", "__pycache__")
MESSAGE_CHARS = 400
COLLECTION_FAILURE = "collection failure"  # pytest's <error message=...> for a file it cannot import
NO_MODULE = re.compile(r"No module named (?:'([A-Za-z_][\w.]*)'|([A-Za-z_][\w.]*))")


def installed_names(site):
    """Top-level import names the installed library provides: its packages and modules."""
    names = set()
    if not site or not os.path.isdir(site):
        return names
    for entry in os.listdir(site):
        if entry.endswith((".dist-info", ".egg-info", ".data", ".pth")) or entry in SKIP_IN_SITE:
            continue
        names.add(entry.split(".")[0] if os.path.isfile(os.path.join(site, entry)) else entry)
    return names


def make_tree(source, tree, site):
    """TREE: SOURCE without what SITE installs. Returns the names left out."""
    shutil.rmtree(tree, ignore_errors=True)
    os.makedirs(tree)
    if not source:
        return []
    copy_tree(source, tree, os.path.dirname(tree))
    left_out = []
    names = installed_names(site)
    for entry in sorted(os.listdir(tree)):
        path = os.path.join(tree, entry)
        module = entry.split(".")[0] if os.path.isfile(path) and entry.endswith((".py", ".so")) else entry
        if module in names:
            shutil.rmtree(path) if os.path.isdir(path) else os.unlink(path)
            left_out.append(entry)
    return left_out


def is_pytest(argv):
    """pytest run as itself (pytest, py.test, a path to either) or as `python -m pytest`."""
    first = os.path.basename(argv[0])
    return first in ("pytest", "py.test") or any(a == "-m" and b == "pytest" for a, b in zip(argv, argv[1:]))


def node_id(tree, classname, name):
    """pytest's id for a JUnit testcase: the longest dotted prefix of classname that is a file."""
    parts = classname.split(".") if classname else []
    for i in range(len(parts), 0, -1):
        path = "/".join(parts[:i]) + ".py"
        if os.path.isfile(os.path.join(tree, path)):
            return "::".join([path] + parts[i:] + [name])
    return "::".join([p for p in (classname, name) if p])


def first_words(text):
    text = " ".join((text or "").split())
    return text if len(text) <= MESSAGE_CHARS else text[:MESSAGE_CHARS - 1] + "…"


def missing_module(text):
    """The dotted module of the last "No module named 'X'" (ModuleNotFoundError, or an ImportError
    of Python 2's form without quotes) in a traceback; "" when it lacks none."""
    found = NO_MODULE.findall(text or "")
    return next((quoted or bare for quoted, bare in reversed(found)), "")


def last_error_line(text):
    """What pytest's traceback ends with: its `E   ...` lines, else its last line."""
    lines = [l.strip() for l in (text or "").strip().splitlines()]
    errors = [l[1:].strip() for l in lines if l.startswith("E ")]
    return errors[-1] if errors else (lines[-1] if lines else "")


def is_own(module, test_file, tree, own_names):
    """Whether the module is the library's (what its wheel installed) or the suite's own: a
    module or package at the tree's top or beside the test file or in a folder above it, where
    pytest's rootdir insertion would find it."""
    top = module.split(".")[0]
    if top in own_names:
        return True
    folder = os.path.dirname(os.path.join(tree, test_file))
    while True:
        if os.path.isfile(os.path.join(folder, top + ".py")) or os.path.isdir(os.path.join(folder, top)):
            return True
        if os.path.abspath(folder) == os.path.abspath(tree) or os.path.dirname(folder) == folder:
            return False
        folder = os.path.dirname(folder)


def top_installed(module):
    """Whether the cell has the top of a dotted module it lacks (mmcv of 'mmcv._ext': a package
    installed without its built part, not a distribution the cell lacks)."""
    try:
        return importlib.util.find_spec(module.split(".")[0]) is not None
    except (ImportError, ValueError):
        return False


def collection_error(tree, case, child, own_names):
    """A testcase pytest writes for a test file it could not import: its name is the file's
    dotted path (tests.test_a for tests/test_a.py), its classname empty."""
    name = case.get("name", "")
    path = case.get("file") or name.replace(".", "/") + ".py"  # junit_family=xunit1 writes file="..."
    test_file = path if os.path.isfile(os.path.join(tree, path)) else name
    text = child.text or ""
    module = missing_module(text)
    return {"file": test_file, "module": module, "own": bool(module) and is_own(module, test_file, tree, own_names),
            "top_installed": bool(module) and "." in module and top_installed(module),
            "message": first_words(last_error_line(text))}


def read_junit(path, tree, own_names=()):
    tests, errors = [], []
    counts = {"passed": 0, "failed": 0, "error": 0, "skipped": 0, "not_collected": 0}
    for case in ET.parse(path).getroot().iter("testcase"):
        error = case.find("error")
        if error is not None and error.get("message") == COLLECTION_FAILURE:
            counts["not_collected"] += 1
            errors.append(collection_error(tree, case, error, own_names))
            continue
        outcome, message = "passed", ""
        for kind in ("failure", "error", "skipped"):
            child = case.find(kind)
            if child is not None:
                outcome = {"failure": "failed"}.get(kind, kind)
                lines = (child.text or "").strip().splitlines()
                message = child.get("message") or (lines[-1] if lines else "")
                break
        counts[outcome] += 1
        tests.append({"id": node_id(tree, case.get("classname", ""), case.get("name", "")), "outcome": outcome,
                      "message": first_words(message)})
    return tests, counts, errors


def main():
    parser = argparse.ArgumentParser(prog="run_tests.py")
    parser.add_argument("--source", default="")
    parser.add_argument("--tree", required=True)
    parser.add_argument("--site", default="")
    parser.add_argument("--junit", default="")
    parser.add_argument("argv", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    argv = args.argv[1:] if args.argv[:1] == ["--"] else args.argv
    if not argv:
        parser.error("no command after --")
    left_out = make_tree(args.source, args.tree, args.site)
    if left_out:
        print("run_tests.py: %s left out of %s: the installed library's own (%s) is imported instead" % (
            ", ".join(left_out), args.tree, args.site), file=sys.stderr, flush=True)
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    if args.junit:
        if os.path.exists(args.junit):
            os.unlink(args.junit)
        if is_pytest(argv):
            argv = argv + ["--junitxml=" + args.junit, "-p", "no:cacheprovider", "-rs"]
            if "--continue-on-collection-errors" not in argv:
                argv.append("--continue-on-collection-errors")
        env["OPMATRIX_JUNIT_XML"] = args.junit
    print("+ (in %s)" % args.tree, " ".join(argv), file=sys.stderr, flush=True)
    try:
        rc = subprocess.run(argv, cwd=args.tree, env=env, stdout=sys.stderr, stderr=sys.stderr).returncode
        # A command a signal killed (-N) exits as a shell's would, 128+N: the harness reads that as
        # a crash with its signal (sys.exit(-11) would be the meaningless 245).
        if rc < 0:
            rc = 128 - rc
    except OSError as e:
        print("run_tests.py: cannot run %s: %s" % (argv[0], e), file=sys.stderr)
        rc = 127
    if not args.junit:
        return rc
    out = {"ok": True, "exit_code": rc, "junit": False, "argv": argv, "tests": [], "collection_errors": [],
           "counts": {"passed": 0, "failed": 0, "error": 0, "skipped": 0, "not_collected": 0}}
    if os.path.isfile(args.junit):
        try:
            own = installed_names(args.site) | {os.path.splitext(e)[0] for e in left_out}
            out["tests"], out["counts"], out["collection_errors"] = read_junit(args.junit, args.tree, own)
            out["junit"] = True
        except ET.ParseError as e:
            out["junit_error"] = "%s is not JUnit XML: %s" % (args.junit, e)
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
