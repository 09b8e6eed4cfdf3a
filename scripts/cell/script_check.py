"""What every script check (docs/checks.md, "Adding a check") shares: its results in the form
the harness reads, and a main that always prints them, never a traceback."""
import json
import os
import sys


def result(check, status, message, kind=None, summary=None, fix=None, evidence=None, op="", subtest="", sample=""):
    """One check result; a failure's diagnosis when `kind` is given. `op`, `subtest` (one part of
    a check, e.g. opcheck's test_faketensor) and `sample` (the input it ran on) only when given."""
    out = {"check": check, "status": status, "message": message}
    for key, value in (("op", op), ("subtest", subtest), ("sample", sample)):
        if value:
            out[key] = value
    if kind:
        out["diagnosis"] = {"kind": kind, "summary": summary or message, "fix": fix or "", "evidence": evidence or ""}
    return out


def torch_version():
    """The cell's torch version: as the probe read it (OPMATRIX_TORCH_VERSION, which spares a step
    importing torch again), else from torch itself."""
    if os.environ.get("OPMATRIX_TORCH_VERSION"):
        return os.environ["OPMATRIX_TORCH_VERSION"]
    import torch
    return str(torch.__version__)


def torch_cxx11_abi():
    """Whether the cell's torch was built with _GLIBCXX_USE_CXX11_ABI=1: as the probe read it
    (OPMATRIX_TORCH_CXX11_ABI), else from torch itself."""
    if os.environ.get("OPMATRIX_TORCH_CXX11_ABI") in ("0", "1"):
        return os.environ["OPMATRIX_TORCH_CXX11_ABI"] == "1"
    import torch
    return bool(torch._C._GLIBCXX_USE_CXX11_ABI)


def run(check, report):
    """Prints {"checks": report()}; an exception becomes one `error` result of `check`."""
    try:
        checks = report()
    except Exception as e:  # noqa: BLE001 - the harness needs JSON, not a traceback
        checks = [result(check, "error", "%s: %s" % (type(e).__name__, e))]
    print(json.dumps({"checks": checks}))
    sys.stdout.flush()
