"""Check `export`: torch.export.export of a torch.nn.Module whose forward calls the op, on the
op's first CPU sample; the exported program's module must give eager's output. Export traces
with fake tensors and no graph breaks, as deployment (AOTInductor, ExecuTorch) needs.

    export_check.py LIBRARY...

The cell's own ops only (OPMATRIX_* environment, op_samples.py). Prints {"checks": [...]}; never raises."""
import sys

from op_samples import Cell, cell_targets, compare, excerpt, op_module, stdout_to_stderr
from script_check import result, run

CHECK = "export"
FIX = "give the op a fake kernel (a Meta TORCH_LIBRARY_IMPL or torch.library.register_fake) that gives the " \
      "real kernel's sizes, dtype and device; a data-dependent output size must be a new symbolic size"


def export_one(torch, name, sample):
    module, inputs = op_module(sample)
    try:
        expected = module(*inputs)
    except Exception as e:  # noqa: BLE001
        return result(CHECK, "error", "the op fails eagerly on its first sample %s: %s" % (sample.description, excerpt(e)),
                      op=name, sample=sample.description)
    try:
        program = torch.export.export(module, tuple(inputs))
        exported = program.module() if hasattr(program, "module") else program  # 2.1: the program is callable
        got = exported(*inputs)
    except Exception as e:  # noqa: BLE001 - export's own text is the finding
        message = "torch.export.export fails on %s: %s" % (sample.description, excerpt(e))
        return result(CHECK, "fail", message, kind="export", fix=FIX, op=name, sample=sample.description)
    why = compare(got, expected)
    if why:
        message = "the exported program's output differs from eager on %s: %s" % (sample.description, why)
        return result(CHECK, "fail", message, kind="export_mismatch", fix=FIX, op=name, sample=sample.description)
    return result(CHECK, "pass", "torch.export.export then ep.module() matches eager on %s" % sample.description,
                  op=name, sample=sample.description)


def report(libraries):
    import torch
    targets, checks = cell_targets(CHECK, Cell(), libraries)
    try:
        import torch.export  # noqa: F401 - torch < 2.1 has none
    except Exception as e:  # noqa: BLE001
        why = "torch %s has no torch.export (torch >= 2.1): %s" % (torch.__version__, excerpt(e))
        return checks + [result(CHECK, "skip", why, op=name) for name, _ in targets]
    for name, samples in targets:
        checks.append(export_one(torch, name, samples[0]))
    return checks


if __name__ == "__main__":
    run(CHECK, stdout_to_stderr(lambda: report(sys.argv[1:])))
