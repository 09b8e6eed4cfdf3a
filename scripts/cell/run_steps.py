"""Runs several of a cell's steps in one container, one after the other, each as its own process
with its own timeout, and prints what each did as JSON: the steps that only read the files a
build left (StepSpec::shares_container) need no container of their own, and a container start
costs more than such a step's work.

    run_steps.py STEPS_JSON
    STEPS_JSON: [{"step": NAME, "argv": [...], "timeout_s": SECONDS}, ...]
    prints {"steps": [{"step", "exit_code", "signal", "timed_out", "seconds", "stdout", "log"}]}

Each step runs as the harness would have run it alone (same argv, same environment, the same
working folder); its stderr is its log. A step that times out is killed (its process group) and
the next one runs; the harness reads each step's result as that step's own."""
import json
import os
import signal
import subprocess
import sys
import time


def run_one(step):
    start = time.monotonic()
    out = {"step": step["step"], "exit_code": -1, "signal": 0, "timed_out": False}
    p = subprocess.Popen(step["argv"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    try:
        stdout, stderr = p.communicate(timeout=step["timeout_s"])
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        stdout, stderr = p.communicate()
        out["timed_out"] = True
    if p.returncode is not None and p.returncode < 0:
        out["signal"] = -p.returncode
    else:
        out["exit_code"] = p.returncode
    out["seconds"] = time.monotonic() - start
    out["stdout"] = stdout.decode("utf-8", "replace")
    out["log"] = stderr.decode("utf-8", "replace")
    return out


def main():
    steps = json.loads(sys.argv[1])
    print(json.dumps({"steps": [run_one(s) for s in steps]}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
