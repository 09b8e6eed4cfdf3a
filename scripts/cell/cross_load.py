"""Load op libraries built in OTHER cells into this cell's torch runtime, one fresh process
per library (two builds of one library cannot register the same ops in one process), and
report each outcome. Prints ONE JSON object; never raises.

    cross_load.py [--namespace NS] [--ops a,b] [--timeout S] [--cases DIR] LIB...

Each entry: the library, load_library.py's report (loaded, undefined symbols demangled,
missing libraries, kernels per op), or how the process died: a library built against another
torch can crash the process in its static initialisers, which is itself the finding.
With --cases DIR (this runtime's build folder), a library that loads and registers every op
on the CPU then meets this runtime's correctness cases: each DIR/*_correctness binary, run with
OPMATRIX_OPS_LIBRARY=LIB, is one entry of "cases" (exit code, tests run, failed test names):
"loads" and "computes the same answers" are separate findings."""
import argparse
import glob
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


def registers_everything(report):
    if not report or not report.get("libraries") or not report["libraries"][0].get("loaded"):
        return False
    return all(keys.get("CPU") is True for keys in (report.get("ops") or {}).values())


def run_cases(cases_dir, lib, timeout):
    """Each correctness binary of this runtime on the foreign library, with its gtest JSON."""
    out = []
    for binary in sorted(glob.glob(os.path.join(cases_dir, "*_correctness"))):
        name = os.path.basename(binary)
        json_path = os.path.join("/tmp", "xload-" + name + ".json")
        env = dict(os.environ, OPMATRIX_OPS_LIBRARY=lib, GTEST_OUTPUT="json:" + json_path)
        case = {"name": name, "exit_code": None, "timed_out": False, "tests": 0, "failed": [], "tail": ""}
        try:
            p = subprocess.run([binary], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env, timeout=timeout)
            case["exit_code"] = p.returncode
            case["tail"] = p.stdout.decode("utf-8", "replace")[-1500:]
        except subprocess.TimeoutExpired:
            case["timed_out"] = True
        try:
            with open(json_path, encoding="utf-8") as f:
                report = json.load(f)
            for suite in report.get("testsuites", []):
                for test in suite.get("testsuite", []):
                    case["tests"] += 1
                    if test.get("failures"):
                        case["failed"].append("%s.%s: %s" % (suite.get("name"), test.get("name"),
                                                             test["failures"][0].get("failure", "").splitlines()[-1][:300]))
            os.remove(json_path)
        except (OSError, ValueError, IndexError):
            pass
        out.append(case)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--namespace", default="opmatrix")
    ap.add_argument("--ops", default="")
    ap.add_argument("--timeout", type=float, default=180)
    ap.add_argument("--cases", default="")
    ap.add_argument("libraries", nargs="*")
    args = ap.parse_args()
    results = []
    for lib in args.libraries:
        entry = one(lib, args.namespace, args.ops, args.timeout)
        if args.cases and entry["signal"] is None and registers_everything(entry["report"]):
            entry["cases"] = run_cases(args.cases, lib, args.timeout)
        results.append(entry)
    return {"results": results}


if __name__ == "__main__":
    print(json.dumps(main()))
    sys.stdout.flush()
