"""Check `export`: torch.export.export of a torch.nn.Module whose forward calls the op, on the
op's first CPU sample; the exported program's module must give eager's output. Export traces
with fake tensors and no graph breaks, as deployment (AOTInductor, ExecuTorch) needs.

    export_check.py LIBRARY...

The cell's own ops only (OPMATRIX_* environment, op_samples.py). Prints {"checks": [...]}; never raises."""
import sys

from op_samples import Cell, against_eager, cell_targets, excerpt, fakes_unavailable, stdout_to_stderr
from script_check import result, run

CHECK = "export"
FIX = "give the op a fake kernel (a Meta TORCH_LIBRARY_IMPL or torch.library.register_fake) that gives the " \
      "real kernel's sizes, dtype and device; a data-dependent output size must be a new symbolic size"


def export_one(torch, name, sample):
    def exported(module, inputs):
        program = torch.export.export(module, tuple(inputs))
        return program.module() if hasattr(program, "module") else program  # 2.1: the program is callable
    return against_eager(CHECK, name, sample, exported, "torch.export.export then ep.module()", FIX)


def report(libraries):
    import torch
    cell = Cell()
    targets, checks = cell_targets(CHECK, cell, libraries)
    try:
        import torch.export  # noqa: F401 - torch < 2.1 has none
    except Exception as e:  # noqa: BLE001
        why = "torch %s has no torch.export (torch >= 2.1): %s" % (torch.__version__, excerpt(e))
        return checks + [result(CHECK, "skip", why, op=name) for name, _ in targets]
    unavailable = fakes_unavailable(cell)
    for name, samples in targets:
        why = unavailable.get(name)
        checks.append(result(CHECK, "skip", why, op=name) if why else export_one(torch, name, samples[0]))
    return checks


if __name__ == "__main__":
    run(CHECK, stdout_to_stderr(lambda: report(sys.argv[1:])))
