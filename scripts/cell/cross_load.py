"""Load op libraries built in OTHER cells into this cell's torch runtime, one process per
library (two builds of one library cannot register the same ops in one process), and report
each outcome. Prints ONE JSON object; never raises.

Each library's process is a child forked from this one right after `import torch` (zygote.py),
so it starts as a fresh `python load_library.py LIB` would, without paying torch's import again:
one import per runtime instead of one per library (2-3 s each on 2 idle cores, 10-15 s on busy
ones). Where torch does not import here, each library gets a fresh load_library.py, which
reports why.

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

from zygote import Zygote

HERE = os.path.dirname(os.path.abspath(__file__))


def load_library_argv(lib, namespace, ops):
    return ["--namespace", namespace, "--ops", ops, lib]


def run_load_library(argv):
    """In a child of the fork server: load_library.py's report, as its own process would print it."""
    import load_library  # imported before the fork: each child has it already
    sys.argv = [os.path.join(HERE, "load_library.py")] + argv
    return load_library.main()


def forked_loader(timeout):
    """A fork server whose children have imported torch and nothing else, or None where torch
    does not import here."""
    try:
        import torch  # noqa: F401 - every child starts with it, as after `import torch`
    except Exception:  # noqa: BLE001 - a fresh load_library.py per library says why
        return None
    import load_library  # noqa: F401 - its own imports, once: it loads no library until main() runs
    return Zygote(run_load_library, timeout=timeout, own_group=True)


def in_own_process(lib, namespace, ops, timeout):
    """load_library.py as a process of its own: {"returncode", "stdout", "stderr", "timed_out"}."""
    argv = [sys.executable, os.path.join(HERE, "load_library.py")] + load_library_argv(lib, namespace, ops)
    try:
        p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"returncode": None, "stdout": "", "stderr": "", "timed_out": True}
    return {"returncode": p.returncode, "stdout": p.stdout.decode("utf-8", "replace"),
            "stderr": p.stderr.decode("utf-8", "replace"), "timed_out": False}


def entry_of(lib, ran):
    """One library's entry from how its process ended."""
    entry = {"library": lib, "report": None, "exit_code": None, "signal": None, "timed_out": False, "stderr": ""}
    if ran["timed_out"]:
        entry["timed_out"] = True
        return entry
    entry["stderr"] = ran["stderr"][-2000:]
    if ran["returncode"] < 0:
        entry["signal"] = signal.Signals(-ran["returncode"]).name
    else:
        entry["exit_code"] = ran["returncode"]
    try:
        entry["report"] = json.loads(ran["stdout"])
    except ValueError:
        pass
    # load_library.py loads the library in a child of its own: a crash there is this load's.
    for loaded in (entry["report"] or {}).get("libraries", []):
        if loaded.get("error_kind") == "crash" and entry["signal"] is None:
            entry["signal"], entry["exit_code"] = loaded.get("signal"), None
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
    zygote = forked_loader(args.timeout) if args.libraries else None
    if zygote:
        try:
            ran = zygote.run([load_library_argv(lib, args.namespace, args.ops) for lib in args.libraries])
        finally:
            zygote.close()
    else:
        ran = [in_own_process(lib, args.namespace, args.ops, args.timeout) for lib in args.libraries]
    results = []
    for lib, how in zip(args.libraries, ran):
        entry = entry_of(lib, how)
        if args.cases and entry["signal"] is None and registers_everything(entry["report"]):
            entry["cases"] = run_cases(args.cases, lib, args.timeout)
        results.append(entry)
    return {"results": results}


if __name__ == "__main__":
    print(json.dumps(main()))
    sys.stdout.flush()
