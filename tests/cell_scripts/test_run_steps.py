"""scripts/cell/run_steps.py: several steps in one container, each its own process with its own
timeout; what each did (exit status, signal, timeout, stdout, its stderr as its log) comes back
as that step's own, and one step's end does not stop the next. Real processes of the cell Python."""
import json
import sys

from conftest import run_json


def step(name, code, timeout=60):
    return {"step": name, "argv": [sys.executable, "-c", code], "timeout_s": timeout}


def test_each_step_keeps_its_own_output_exit_status_and_log():
    steps = [step("wheel", "import sys; print('{\"checks\": []}'); print('read 1 wheel', file=sys.stderr)"),
             step("abi3", "import sys; print('no abi3', file=sys.stderr); sys.exit(3)")]
    out, _ = run_json("run_steps.py", json.dumps(steps))
    wheel, abi3 = out["steps"]
    assert (wheel["step"], wheel["exit_code"], wheel["signal"], wheel["timed_out"]) == ("wheel", 0, 0, False)
    assert json.loads(wheel["stdout"]) == {"checks": []}
    assert wheel["log"] == "read 1 wheel\n"
    assert (abi3["step"], abi3["exit_code"], abi3["log"]) == ("abi3", 3, "no abi3\n")
    assert wheel["seconds"] > 0


def test_a_step_that_times_out_or_crashes_is_said_so_and_the_next_still_runs():
    steps = [step("slow", "import time; time.sleep(60)", timeout=1),
             step("crash", "import os, signal; os.kill(os.getpid(), signal.SIGSEGV)"),
             step("after", "print('ran')")]
    out, _ = run_json("run_steps.py", json.dumps(steps), timeout=60)
    slow, crash, after = out["steps"]
    assert slow["timed_out"] is True and slow["seconds"] < 30
    assert crash["signal"] == 11 and crash["timed_out"] is False
    assert (after["exit_code"], after["stdout"]) == (0, "ran\n")
