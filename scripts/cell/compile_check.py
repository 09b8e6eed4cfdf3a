"""Check `compile`: a torch.nn.Module whose forward calls the op, compiled with
torch.compile(fullgraph=True) and the default Inductor backend, on the op's first CPU sample;
its output must match eager. A failure carries Dynamo's or Inductor's text (an op with no fake
kernel cannot be traced: "... has no meta/fake implementation" or similar).

    compile_check.py LIBRARY...

The cell's own ops only (OPMATRIX_* environment, op_samples.py). Prints {"checks": [...]}; never raises."""
from op_samples import FAKE_KERNEL_FIX, against_eager, run_on_first_samples

CHECK = "compile"
FIX = FAKE_KERNEL_FIX + ", and a schema that says what it mutates"


def compile_one(torch, name, sample):
    import torch._dynamo  # torch 2.0 does not import it with torch ("no attribute '_dynamo'")
    # Data-dependent output sizes (nms) would otherwise be a graph break, which fullgraph=True
    # turns into an error: users of such ops set this flag, so the check does too (torch 2.0's
    # Dynamo has no such flag: there such an op is the graph break it reports).
    if hasattr(torch._dynamo.config, "capture_dynamic_output_shape_ops"):
        torch._dynamo.config.capture_dynamic_output_shape_ops = True
    torch._dynamo.reset()  # no op's compiled graph or guards leak into the next op's
    return against_eager(CHECK, name, sample, lambda module, inputs: torch.compile(module, fullgraph=True),
                         "torch.compile(fullgraph=True)", FIX, " (Inductor, capture_dynamic_output_shape_ops=True)")


def no_compile(torch):
    """Why torch.compile cannot run here at all, or None: a torch without it, or one whose Dynamo
    refuses this Python (torch 2.0 and Python 3.11: "Python 3.11+ not yet supported for
    torch.compile"), by torch's own check. Neither is the op's doing."""
    if not hasattr(torch, "compile"):
        return "torch %s has no torch.compile (torch >= 2.0)" % torch.__version__
    try:
        import torch._dynamo  # noqa: F401 - torch 2.0 does not import it with torch
    except Exception:  # noqa: BLE001 - a fake torch in the tests, or a broken Dynamo: the ops say
        pass
    check = getattr(getattr(getattr(torch, "_dynamo", None), "eval_frame", None), "check_if_dynamo_supported", None)
    try:
        if check:
            check()
    except RuntimeError as e:
        return "torch %s's torch.compile does not run on this Python: %s" % (torch.__version__, e)
    return None


if __name__ == "__main__":
    run_on_first_samples(CHECK, no_compile, compile_one)
