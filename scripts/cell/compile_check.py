"""Check `compile`: a torch.nn.Module whose forward calls the op, compiled with
torch.compile(fullgraph=True) and the default Inductor backend, on the op's first CPU sample;
its output must match eager. A failure carries Dynamo's or Inductor's text (an op with no fake
kernel cannot be traced: "... has no meta/fake implementation" or similar).

    compile_check.py LIBRARY...

The cell's own ops only (OPMATRIX_* environment, op_samples.py). Prints {"checks": [...]}; never raises."""
import sys

from op_samples import Cell, cell_targets, compare, excerpt, op_module, stdout_to_stderr
from script_check import result, run

CHECK = "compile"
FIX = "give the op a fake kernel (a Meta TORCH_LIBRARY_IMPL or torch.library.register_fake) that gives the " \
      "real kernel's sizes, dtype and device, and a schema that says what it mutates"


def compile_one(torch, name, sample):
    # Data-dependent output sizes (nms) would otherwise be a graph break, which fullgraph=True
    # turns into an error: users of such ops set this flag, so the check does too.
    torch._dynamo.config.capture_dynamic_output_shape_ops = True
    torch._dynamo.reset()  # no op's compiled graph or guards leak into the next op's
    module, inputs = op_module(sample)
    try:
        expected = module(*inputs)
    except Exception as e:  # noqa: BLE001
        return result(CHECK, "error", "the op fails eagerly on its first sample %s: %s" % (sample.description, excerpt(e)),
                      op=name, sample=sample.description)
    try:
        got = torch.compile(module, fullgraph=True)(*inputs)
    except Exception as e:  # noqa: BLE001 - Dynamo's / Inductor's own text is the finding
        message = "torch.compile(fullgraph=True) fails on %s: %s" % (sample.description, excerpt(e))
        return result(CHECK, "fail", message, kind="compile", fix=FIX, op=name, sample=sample.description)
    why = compare(got, expected)
    if why:
        message = "torch.compile(fullgraph=True) output differs from eager on %s: %s" % (sample.description, why)
        return result(CHECK, "fail", message, kind="compile_mismatch", fix=FIX, op=name, sample=sample.description)
    return result(CHECK, "pass", "torch.compile(fullgraph=True, Inductor) matches eager on %s "
                  "(capture_dynamic_output_shape_ops=True)" % sample.description, op=name, sample=sample.description)


def report(libraries):
    import torch
    targets, checks = cell_targets(CHECK, Cell(), libraries)
    if not hasattr(torch, "compile"):
        why = "torch %s has no torch.compile (torch >= 2.0)" % torch.__version__
        return checks + [result(CHECK, "skip", why, op=name) for name, _ in targets]
    for name, samples in targets:
        checks.append(compile_one(torch, name, samples[0]))
    return checks


if __name__ == "__main__":
    run(CHECK, stdout_to_stderr(lambda: report(sys.argv[1:])))
