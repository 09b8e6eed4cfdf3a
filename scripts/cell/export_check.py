"""Check `export`: torch.export.export of a torch.nn.Module whose forward calls the op, on the
op's first CPU sample; the exported program's module must give eager's output. Export traces
with fake tensors and no graph breaks, as deployment (AOTInductor, ExecuTorch) needs.

    export_check.py LIBRARY...

The cell's own ops only (OPMATRIX_* environment, op_samples.py). Prints {"checks": [...]}; never raises."""
from op_samples import FAKE_KERNEL_FIX, against_eager, excerpt, run_on_first_samples

CHECK = "export"
FIX = FAKE_KERNEL_FIX + "; a data-dependent output size must be a new symbolic size"


def export_one(torch, name, sample):
    def exported(module, inputs):
        program = torch.export.export(module, tuple(inputs))
        return program.module() if hasattr(program, "module") else program  # 2.1: the program is callable
    return against_eager(CHECK, name, sample, exported, "torch.export.export then ep.module()", FIX)


def no_export(torch):
    try:
        import torch.export  # noqa: F401 - torch < 2.1 has none
    except Exception as e:  # noqa: BLE001
        return "torch %s has no torch.export (torch >= 2.1): %s" % (torch.__version__, excerpt(e))
    return None


if __name__ == "__main__":
    run_on_first_samples(CHECK, no_export, export_one)
