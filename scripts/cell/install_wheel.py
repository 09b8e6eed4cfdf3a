"""Installs a prebuilt op-library wheel (a `wheel:` project, fetched by fetch_pypi.py) as a
user's `pip install --no-deps` does, into BUILD/site, the folder later steps put on PYTHONPATH.

    install_wheel.py WHEEL BUILD

The wheel is copied to BUILD/wheel/ first, so the `wheel` check (wheel_metadata.py) reads its
tags and torch requirement as it does a built one's. pip's output goes to stderr (the step's
log); stdout is one JSON object, build_wheel.py's: {"ok": true, "wheel", "site", "tags",
"requires", "libraries": [.so files, relative to site], and "compiled_wheels" where it is a
pure-Python wheel pip took because the release's compiled wheels do not fit}, or {"ok": false,
"error": KIND, "message": ...} with exit status 1, KIND one of not_a_wheel, wrong_platform,
install_failed."""
import json
import os
import shutil
import sys
import zipfile

from build_wheel import beside_its_requirements, fail, install, summary
from fetch_pypi import LISTING
from wheel_tags import compiled, interpreter_tags, wheels_for, why_none_fits


def main():
    if len(sys.argv) != 3:
        return fail("usage", "usage: install_wheel.py WHEEL BUILD")
    wheel, build = sys.argv[1], sys.argv[2]
    name = os.path.basename(wheel)
    if not (name.endswith(".whl") and os.path.isfile(wheel) and zipfile.is_zipfile(wheel)):
        return fail("not_a_wheel", "%s is not a wheel file (missing, or not a zip named *.whl): fetch it again" % wheel)
    wheel_dir, site = os.path.join(build, "wheel"), os.path.join(build, "site")
    shutil.rmtree(wheel_dir, ignore_errors=True)
    os.makedirs(wheel_dir)
    copy = os.path.join(wheel_dir, name)
    shutil.copy2(wheel, copy)
    rc, output = install(copy, site)
    if rc != 0 and "is not a supported wheel on this platform" in output:
        return fail("wrong_platform", "pip refuses %s here: %s. A user's pip install does the same: pick the "
                    "wheel for this cell's Python and platform" % (name, why_none_fits([name], interpreter_tags() or [])))
    if rc != 0:
        errors = [line.strip() for line in output.splitlines() if line.startswith("ERROR")]
        return fail("install_failed", "pip install --no-deps %s failed (exit %d)%s" % (
            name, rc, ": " + " ".join(errors[-3:]) if errors else "; its output is in the log"))
    beside_its_requirements(site, os.path.join(build, "deps"))
    out = summary(copy, site)
    elsewhere = compiled_wheels_elsewhere(wheel)
    if elsewhere and not out["libraries"]:
        out["compiled_wheels"] = elsewhere
    print(json.dumps(out))
    return 0


def compiled_wheels_elsewhere(wheel):
    """Where pip took a release's pure-Python wheel (py3-none-any) because none of its compiled
    wheels fits this Python or platform (torchdata 0.7.1 and torchopt 0.7.3 in Python 3.13: cp38-
    cp311 wheels, and a py3-none-any one without their extension), what those compiled wheels are
    for, from the release's file list fetch_pypi.py keeps beside the wheel; "" otherwise."""
    if compiled(os.path.basename(wheel)):
        return ""
    try:
        with open(os.path.join(os.path.dirname(wheel), LISTING)) as f:
            files = [entry["filename"] for entry in json.load(f)["files"]]
    except (OSError, ValueError, KeyError, TypeError):
        return ""
    others = [f for f in files if f.endswith(".whl") and compiled(f)]
    return wheels_for(others) if others else ""


if __name__ == "__main__":
    try:
        sys.exit(main())
    except Exception as e:  # noqa: BLE001 - the harness needs JSON, not a traceback
        sys.exit(fail("internal", "%s: %s" % (type(e).__name__, e)))
