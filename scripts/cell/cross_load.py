"""Load op libraries built in OTHER cells into this cell's torch runtime, one fresh process
per library (two builds of one library cannot register the same ops in one process), and
report each outcome. Prints ONE JSON object; never raises.

    cross_load.py [--namespace NS] [--ops a,b] [--timeout S] LIB...

Each entry: the library, load_library.py's report (loaded, undefined symbols demangled,
missing libraries, kernels per op), or how the process died: a library built against another
torch can crash the process in its static initialisers, which is itself the finding."""
import argparse
import json
import os
import signal
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def one(lib, namespace, ops, timeout):
    argv = [sys.executable, os.path.join(HERE, "load_library.py"), "--namespace", namespace, "--ops", ops, lib]
    entry = {"library": lib, "report": None, "exit_code": None, "signal": None, "timed_out": False, "stderr": ""}
    try:
        p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout)
    except subprocess.TimeoutExpired:
        entry["timed_out"] = True
        return entry
    entry["stderr"] = p.stderr.decode("utf-8", "replace")[-2000:]
    if p.returncode < 0:
        entry["signal"] = signal.Signals(-p.returncode).name
    else:
        entry["exit_code"] = p.returncode
    try:
        entry["report"] = json.loads(p.stdout.decode("utf-8", "replace"))
    except ValueError:
        pass
    # load_library.py loads the library in a child of its own: a crash there is this load's.
    for lib in (entry["report"] or {}).get("libraries", []):
        if lib.get("error_kind") == "crash" and entry["signal"] is None:
            entry["signal"], entry["exit_code"] = lib.get("signal"), None
    return entry


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--namespace", default="opmatrix")
    ap.add_argument("--ops", default="")
    ap.add_argument("--timeout", type=float, default=180)
    ap.add_argument("libraries", nargs="*")
    args = ap.parse_args()
    return {"results": [one(lib, args.namespace, args.ops, args.timeout) for lib in args.libraries]}


if __name__ == "__main__":
    print(json.dumps(main()))
    sys.stdout.flush()
