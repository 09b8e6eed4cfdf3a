#!/usr/bin/env python3
"""Our CUDA kernels run for real, on the behaviour checks' samples (cases/samples.py): each op's
output on DEVICE against our CPU kernel on the same inputs, against torchvision's op on DEVICE
where torchvision has the op (nms, roi_align, deform_conv2d), gradients against the CPU kernel's,
and torch.compile and torch.export against eager on DEVICE (nms's Python fake kernel on real
CUDA tensors). Prints one line per comparison and a JSON summary last; exit 1 if any differs.

    check_cuda.py [--device cuda] [--json out.json]      (PYTHONPATH: the folder holding
                                                           libopmatrix_ops.so and opmatrix_ops.py)
With --device cpu it compares our CPU kernels with torchvision's CPU ops only (no GPU needed)."""
import argparse
import json
import os
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.join(HERE, "..", "..", "cases"), os.path.join(HERE, "..", "..", "scripts", "cell")]

import opmatrix_ops  # noqa: E402,F401  loads the library beside it, registers nms's fake kernel
import samples as case_samples  # noqa: E402
from op_samples import compare  # noqa: E402  the behaviour checks' own comparison and tolerances

TORCHVISION_OPS = ("nms", "roi_align", "deform_conv2d")


def detached(args, device=None):
    """The sample's arguments on `device`, leaves that require grad anew where they did."""
    out = []
    for a in args:
        if isinstance(a, torch.Tensor):
            t = a.detach().to(device or a.device)
            out.append(t.requires_grad_(a.requires_grad))
        else:
            out.append(a)
    return out


def grads(op, args):
    """Output and d(sum of outputs)/d(each input that requires grad)."""
    out = op(*args)
    leaves = [a for a in args if isinstance(a, torch.Tensor) and a.requires_grad]
    if not leaves:
        return out, []
    total = sum(o.sum() for o in (out if isinstance(out, (tuple, list)) else [out]) if o.is_floating_point())
    return out, list(torch.autograd.grad(total, leaves))


def torchvision_op(name):
    try:
        import torchvision  # noqa: F401  registers torch.ops.torchvision.*
        return getattr(torch.ops.torchvision, name)
    except (ImportError, AttributeError, RuntimeError):
        return None


def compiled_and_exported(op, args):
    """[(what, run)] for torch.compile (static and dynamic shapes) and torch.export of a module
    calling `op` with the sample's tensors as inputs and its other arguments baked in."""
    positions = [i for i, a in enumerate(args) if isinstance(a, torch.Tensor)]
    tensors = tuple(args[i] for i in positions)
    # For each argument: the index of its tensor among the inputs, or None for a constant (no list
    # item assignment: Dynamo < 2.14 cannot trace one with dynamic shapes).
    source = [positions.index(i) if i in positions else None for i in range(len(args))]

    class Call(torch.nn.Module):
        def forward(self, *inputs):
            return op(*[args[i] if k is None else inputs[k] for i, k in enumerate(source)])

    # nms's output size depends on the data: its users let Dynamo capture such ops.
    torch._dynamo.config.capture_dynamic_output_shape_ops = True
    out = [("compile", lambda: torch.compile(Call(), fullgraph=True)(*tensors)),
           ("compile dynamic", lambda: torch.compile(Call(), fullgraph=True, dynamic=True)(*tensors))]
    if hasattr(torch, "export"):
        out.append(("export", lambda: torch.export.export(Call(), tensors).module()(*tensors)))
    return out


def check(device):
    rows = []

    def row(op, sample, against, why):
        rows.append({"op": op, "sample": sample, "against": against, "ok": why is None, "why": why or ""})
        print("%-4s %-15s sample %d vs %-22s %s" % ("ok" if why is None else "FAIL", op, sample, against, why or ""))

    for i, (qualified, args, _) in enumerate(case_samples.samples(device)):
        name = qualified.split("::")[1]
        ours = getattr(torch.ops.opmatrix, name)
        k = sum(1 for q, _, _ in case_samples.samples("cpu")[:i] if q == qualified)
        out, g = grads(ours, detached(args))
        if device != "cpu":
            cpu_out, cpu_g = grads(ours, detached(args, "cpu"))
            row(name, k, "our CPU kernel", compare(out, cpu_out))
            if g:
                row(name, k, "our CPU kernel's grads", compare(g, cpu_g))
        tv = torchvision_op(name) if name in TORCHVISION_OPS else None
        if tv is not None:
            # Same schemas as torchvision's (kernels/ops/*.cpp): the same arguments serve both.
            row(name, k, "torchvision " + device, compare(ours(*detached(args)), tv(*detached(args))))
        if k == 0 and hasattr(torch, "compile"):
            eager = ours(*detached(args))
            for what, run in compiled_and_exported(ours, detached(args)):
                try:
                    row(name, k, what, compare(run(), eager))
                except Exception as e:  # noqa: BLE001 - a trace failure is a finding
                    row(name, k, what, "%s: %s" % (type(e).__name__, str(e).splitlines()[0][:300]))
    return rows


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--device", default="cuda")
    p.add_argument("--json")
    a = p.parse_args()
    if a.device != "cpu" and not torch.cuda.is_available():
        print("check_cuda.py: no CUDA device visible to torch %s: nothing to check" % torch.__version__)
        return 77
    rows = check(a.device)
    summary = {"device": torch.cuda.get_device_name() if a.device != "cpu" else "cpu", "torch": torch.__version__,
               "fake": opmatrix_ops.registered(), "compared": len(rows), "differ": sum(not r["ok"] for r in rows),
               "rows": rows}
    if a.json:
        with open(a.json, "w") as f:
            json.dump(summary, f, indent=1)
    print(json.dumps({k: v for k, v in summary.items() if k != "rows"}))
    return 1 if summary["differ"] else 0


if __name__ == "__main__":
    sys.exit(main())
