"""Check `compile`: a torch.nn.Module whose forward calls the op, compiled with
torch.compile(fullgraph=True) and the default Inductor backend, on the op's first CPU sample;
its output must match eager. A failure carries Dynamo's or Inductor's text (an op with no fake
kernel cannot be traced: "... has no meta/fake implementation" or similar).

    compile_check.py LIBRARY...

The cell's own ops only (OPMATRIX_* environment, op_samples.py). Prints {"checks": [...]}; never raises."""
import sys

from op_samples import Cell, against_eager, cell_targets, fakes_unavailable, stdout_to_stderr
from script_check import result, run

CHECK = "compile"
FIX = "give the op a fake kernel (a Meta TORCH_LIBRARY_IMPL or torch.library.register_fake) that gives the " \
      "real kernel's sizes, dtype and device, and a schema that says what it mutates"


def compile_one(torch, name, sample):
    # Data-dependent output sizes (nms) would otherwise be a graph break, which fullgraph=True
    # turns into an error: users of such ops set this flag, so the check does too.
    torch._dynamo.config.capture_dynamic_output_shape_ops = True
    torch._dynamo.reset()  # no op's compiled graph or guards leak into the next op's
    return against_eager(CHECK, name, sample, lambda module, inputs: torch.compile(module, fullgraph=True),
                         "torch.compile(fullgraph=True)", FIX, " (Inductor, capture_dynamic_output_shape_ops=True)")


def report(libraries):
    import torch
    cell = Cell()
    targets, checks = cell_targets(CHECK, cell, libraries)
    if not hasattr(torch, "compile"):
        why = "torch %s has no torch.compile (torch >= 2.0)" % torch.__version__
        return checks + [result(CHECK, "skip", why, op=name) for name, _ in targets]
    unavailable = fakes_unavailable(cell)
    for name, samples in targets:
        why = unavailable.get(name)
        checks.append(result(CHECK, "skip", why, op=name) if why else compile_one(torch, name, samples[0]))
    return checks


if __name__ == "__main__":
    run(CHECK, stdout_to_stderr(lambda: report(sys.argv[1:])))
