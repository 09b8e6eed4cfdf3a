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
command gets --junitxml=FILE (any other command may write JUnit XML to $OPMATRIX_JUNIT_XML), and
stdout's last line is one JSON object: {"ok": true, "exit_code", "junit": bool, "argv",
"counts": {passed, failed, error, skipped}, "tests": [{"id", "outcome", "message"}]}, ids as
pytest names them (path::Class::test); exit 0 whenever the tests ran, passed or not."""
import argparse
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


def read_junit(path, tree):
    tests, counts = [], {"passed": 0, "failed": 0, "error": 0, "skipped": 0}
    for case in ET.parse(path).getroot().iter("testcase"):
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
    return tests, counts


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
        env["OPMATRIX_JUNIT_XML"] = args.junit
    print("+ (in %s)" % args.tree, " ".join(argv), file=sys.stderr, flush=True)
    try:
        rc = subprocess.run(argv, cwd=args.tree, env=env, stdout=sys.stderr, stderr=sys.stderr).returncode
    except OSError as e:
        print("run_tests.py: cannot run %s: %s" % (argv[0], e), file=sys.stderr)
        rc = 127
    if not args.junit:
        return rc
    out = {"ok": True, "exit_code": rc, "junit": False, "argv": argv, "tests": [],
           "counts": {"passed": 0, "failed": 0, "error": 0, "skipped": 0}}
    if os.path.isfile(args.junit):
        try:
            out["tests"], out["counts"] = read_junit(args.junit, args.tree)
            out["junit"] = True
        except ET.ParseError as e:
            out["junit_error"] = "%s is not JUnit XML: %s" % (args.junit, e)
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
