"""The assertions of run_verdicts.sh on its one cell's results and the run's JSON report: each
op of verdictops gets the verdict its rule gives (docs/results.md). Prints each expectation;
exits 1 naming those that do not hold."""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scripts"))
from fixture_checks import expect, finish, read_cell  # noqa: E402

results, report = read_cell(sys.argv[1], "verdicts-trixie-torch2.6-cpu"), json.load(open(sys.argv[2]))
checks = results["checks"]


def of(op, check, subtest=None):
    return [c for c in checks if c.get("op") == op and c["check"] == check
            and (subtest is None or c.get("subtest") == subtest)]


def statuses(op):
    return sorted({c["status"] for c in checks if c.get("op") == op})


# The control: everything that ran passes.
expect("scale: every result passes or does not apply", set(statuses("scale")) <= {"pass", "skip"}, statuses("scale"))
reg = of("cuda_only", "registration")[0]
expect("cuda_only: registration passes, naming the promise",
       reg["status"] == "pass" and "no CPU kernel, as its library promises" in reg["message"], reg["message"])
behaviour = [c for c in checks if c.get("op") == "cuda_only" and c["check"] in ("opcheck", "compile", "export")]
expect("cuda_only: its behaviour is not checked here, never red",
       behaviour and all(c["status"] == "skip" and "a CUDA-only op, as promised" in c["message"] for c in behaviour),
       [(c["check"], c["status"], c["message"][:120]) for c in behaviour])
meta = of("add_out", "meta")[0]
expect("add_out: meta passes (no returns: it needs no Meta kernel)",
       meta["status"] == "pass" and "needs no Meta kernel of its own" in meta["message"], meta["message"])
meta = of("count_positive", "meta")[0]
expect("count_positive: meta fails although CompositeImplicitAutograd serves Meta",
       meta["status"] == "fail" and "cannot run on fake tensors" in meta["message"]
       and meta.get("diagnosis", {}).get("kind") == "no_fake_kernel", meta["message"])
wrong = [c for c in checks if c.get("op") == "wrong_fake" and c.get("diagnosis", {}).get("kind", "").endswith("_mismatch")]
expect("wrong_fake: a wrong result is found (a *_mismatch diagnosis)", bool(wrong),
       [(c["check"], c.get("subtest"), c["status"]) for c in checks if c.get("op") == "wrong_fake"])
gated = [c for c in checks if c.get("op") == "gpu_gated"]
expect("gpu_gated: every result is 'not checked here', none red",
       gated and all(c["status"] in ("skip", "pass") for c in gated)
       and any("not checked here (registered only where a GPU is visible" in c["message"] for c in gated),
       [(c["check"], c["status"], c["message"][:100]) for c in gated])

cell = [c for c in report["cells"] if c["cell"]["id"] == results["cell"]["id"]][0]
verdict = cell["verdict"]
broken = " ".join(verdict["broken"])
expect("the cell is broken, and only by wrong_fake",
       verdict["verdict"] == "fail" and "wrong_fake" in broken
       and not any(op in broken for op in ("scale", "cuda_only", "add_out", "count_positive", "gpu_gated")),
       verdict["text"])
expect("count_positive's missing fake kernel is a limit", any("count_positive" in l for l in verdict["limits"]),
       verdict["limits"])
finish()
