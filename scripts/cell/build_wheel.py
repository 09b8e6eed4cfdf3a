"""Builds a setup.py / pyproject op library as users get it: a wheel, against the cell's torch
(no build isolation, no dependencies, no network), then installs it into a folder of its own.

    build_wheel.py SOURCE BUILD

SOURCE (read-only) is copied over BUILD/src (timestamps kept, earlier build products kept, so
a rebuild is incremental), `pip wheel --no-deps --no-build-isolation` writes BUILD/wheel/,
and `pip install --no-deps --no-index --target BUILD/site` installs it (put BUILD/site on
PYTHONPATH to import it). pip's own output goes to stderr (the step's log); the last line on
stdout is one JSON object: {"wheel": path, "site": folder, "tags": [...], "requires": [...]}.
Exit status: pip's, when it fails."""
import json
import os
import shutil
import subprocess
import sys

from wheel_metadata import metadata


def copy_tree(src, dst):
    """SOURCE over BUILD/src: new and changed files copied with their times, nothing removed
    but what vanished from SOURCE's own files (build products stay for incremental builds)."""
    for root, dirs, files in os.walk(src):
        dirs[:] = [d for d in dirs if d not in (".git", "__pycache__")]
        rel = os.path.relpath(root, src)
        os.makedirs(os.path.join(dst, rel), exist_ok=True)
        for f in files:
            s, d = os.path.join(root, f), os.path.join(dst, rel, f)
            st = os.stat(s)
            if not os.path.exists(d) or os.stat(d).st_mtime != st.st_mtime or os.stat(d).st_size != st.st_size:
                shutil.copy2(s, d)


def run(argv):
    print("+", " ".join(argv), file=sys.stderr, flush=True)
    return subprocess.run(argv, stdout=sys.stderr, stderr=sys.stderr).returncode


def main():
    if len(sys.argv) != 3:
        print("usage: build_wheel.py SOURCE BUILD", file=sys.stderr)
        return 2
    source, build = sys.argv[1], sys.argv[2]
    src, wheel_dir, site = os.path.join(build, "src"), os.path.join(build, "wheel"), os.path.join(build, "site")
    copy_tree(source, src)
    shutil.rmtree(wheel_dir, ignore_errors=True)
    shutil.rmtree(site, ignore_errors=True)
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "--no-input", "--no-cache-dir"]
    rc = run(pip + ["wheel", "--no-deps", "--no-build-isolation", "--no-index", "-w", wheel_dir, src])
    if rc != 0:
        return rc
    wheels = sorted(f for f in os.listdir(wheel_dir) if f.endswith(".whl"))
    if len(wheels) != 1:
        print("build_wheel.py: expected one wheel in %s, found %s" % (wheel_dir, wheels or "none"), file=sys.stderr)
        return 1
    wheel = os.path.join(wheel_dir, wheels[0])
    rc = run(pip + ["install", "--no-deps", "--no-index", "--no-compile", "--target", site, wheel])
    if rc != 0:
        return rc
    tags, requires = metadata(wheel)
    print(json.dumps({"wheel": wheel, "site": site, "tags": tags, "requires": requires}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
