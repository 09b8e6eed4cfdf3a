"""Check `opcheck`: torch.library.opcheck on every sample of every op, its four sub-tests
reported apart, so a report says which promise an op breaks: its schema (test_schema), its
autograd registration (test_autograd_registration), its fake kernel (test_faketensor) or
tracing with symbolic sizes (test_aot_dispatch_dynamic).

    opcheck_check.py LIBRARY...

The cell's own ops (OPMATRIX_* environment, op_samples.py) and torchvision's ops, in every cell.
Prints {"checks": [...]}; never raises."""
import re
import sys

from op_samples import (RUNTIME_SAMPLE, Cell, broken_sample, cell_targets, excerpt, fakes_unavailable,
                        requirement_at_fault, requirement_fault_result, sample_devices, stdout_to_stderr,
                        torchvision_targets)
from script_check import result, run

CHECK = "opcheck"
SUBTESTS = ["test_schema", "test_autograd_registration", "test_faketensor", "test_aot_dispatch_dynamic"]
FIX = {
    "test_schema": "make the schema say what the kernel does: mark inputs it mutates (Tensor(a!)) and "
                   "outputs that alias an input",
    "test_autograd_registration": "register the backward for the Autograd key (TORCH_LIBRARY_IMPL(ns, Autograd, m) "
                                  "or torch.library.register_autograd), not per backend or not at all",
    "test_faketensor": "register a fake kernel (TORCH_LIBRARY_IMPL(ns, Meta, m) or torch.library.register_fake) "
                       "that gives the real kernel's sizes, dtype and device",
    "test_aot_dispatch_dynamic": "the fake kernel must work with symbolic sizes (SymInt) and the backward must "
                                 "be traceable (its own op with a fake kernel)",
}


# How torch says the fake kernel ran but gave other sizes, dtype or device than the real kernel:
# a wrong result, not a missing fake kernel (2.4+: MetadataMismatchError "When comparing the
# output of ..."; 2.1-2.3: "... found mismatched tensor metadata").
FAKE_MISMATCH = re.compile(r"MetadataMismatchError|mismatched tensor metadata|When comparing the output of")


def failure_kind(sub, error):
    """The diagnosis kind of a sub-test's failure: opcheck_<sub>, with _mismatch where the fake
    kernel gave a wrong answer (the check's wrong_result_kinds)."""
    kind = "opcheck_" + sub
    return kind + "_mismatch" if sub == "test_faketensor" and FAKE_MISMATCH.search(str(error)) else kind


def find_opcheck():
    """(opcheck, its name) or (None, why there is none)."""
    import torch
    if hasattr(torch.library, "opcheck"):
        return torch.library.opcheck, "torch.library.opcheck"
    try:  # torch 2.1 to 2.3 had it as a testing utility only
        from torch.testing._internal.optests import opcheck
        return opcheck, "torch.testing._internal.optests.opcheck"
    except Exception as e:  # noqa: BLE001
        if getattr(e, "name", None) == "expecttest":  # measured: pip torch 2.1.2 has optests, not its test dependency
            return None, ("torch %s has no torch.library.opcheck (torch >= 2.4), and its "
                          "torch.testing._internal.optests.opcheck imports expecttest, a test-only package torch "
                          "does not install (not in this image): %s" % (torch.__version__, excerpt(e)))
        return None, ("torch %s has neither torch.library.opcheck (torch >= 2.4) nor "
                      "torch.testing._internal.optests.opcheck (torch 2.1 to 2.3): %s" % (torch.__version__, excerpt(e)))


# The sub-tests that run the op's fake kernel (opcheck.yaml's fake_kernel_subtests).
FAKE_SUBTESTS = ("test_faketensor", "test_aot_dispatch_dynamic")


def check_op(opcheck, which, name, samples, samples_file, no_fake=None):
    """Each sub-test on every sample; `no_fake`: why this torch cannot have the op's fake kernel
    (its fake sub-tests then skip with it)."""
    broken = broken_sample(CHECK, name, samples, samples_file)
    if broken:
        return [broken]
    out = []
    for sub in SUBTESTS:
        if no_fake and sub in FAKE_SUBTESTS:
            out.append(result(CHECK, "skip", no_fake, op=name, subtest=sub))
            continue
        failures = []
        for s in samples:
            try:
                opcheck(s.op, s.args, s.kwargs, test_utils=sub, raise_exception=True)
            except Exception as e:  # noqa: BLE001 - torch's verdict, kept as its text
                failures.append((s, e))
        if not failures:
            made = "; " + RUNTIME_SAMPLE if any(RUNTIME_SAMPLE in s.description for s in samples) else ""
            out.append(result(CHECK, "pass", "%d sample(s) pass %s (%s%s)" % (len(samples), sub, which, made),
                              op=name, subtest=sub))
            continue
        first, e = failures[0]
        fault = requirement_at_fault(e)
        if fault:
            out.append(requirement_fault_result(CHECK, fault, e, op=name, subtest=sub, sample=first.description))
            continue
        message = "%d of %d sample(s) fail %s (%s); first %s: %s" % (
            len(failures), len(samples), sub, which, first.description, excerpt(e))
        out.append(result(CHECK, "fail", message, kind=failure_kind(sub, e), fix=FIX[sub],
                          evidence="; ".join(s.description for s, _ in failures), op=name, subtest=sub,
                          sample=first.description))
    return out


def report(libraries):
    cell = Cell()
    devices = sample_devices()
    targets, checks = cell_targets(CHECK, cell, libraries, devices)
    tv_targets, tv_problems = torchvision_targets(CHECK, devices)
    targets, checks = targets + tv_targets, checks + tv_problems
    opcheck, which = find_opcheck()
    if opcheck is None:
        return checks + [result(CHECK, "skip", which, op=name) for name, _ in targets]
    unavailable = fakes_unavailable(cell)
    for name, samples in targets:
        source = "torchvision_samples.py" if name.startswith("torchvision::") else cell.samples_file
        checks += check_op(opcheck, which, name, samples, source, unavailable.get(name))
    return checks


if __name__ == "__main__":
    run(CHECK, stdout_to_stderr(lambda: report(sys.argv[1:])))
