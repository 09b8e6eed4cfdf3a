"""Check `fake-device`: each op called on fake CUDA tensors (FakeTensorMode, no GPU or driver
needed) must give outputs on cuda, with the real CPU kernel's dtype and shape. A fake kernel
that builds its output on the CPU, or mixes devices, breaks torch.compile and export of CUDA
models: "Unhandled FakeTensor Device Propagation for torchvision.deform_conv2d.default, found
two different devices cuda:0, cpu".

    fake_device.py LIBRARY...

The cell's own ops (OPMATRIX_* environment, op_samples.py) and torchvision's ops; only where
the cell's torch is a CUDA build. Prints {"checks": [...]}; never raises."""
import sys

from op_samples import (Cell, cell_targets, excerpt, judge_each_op, requirement_at_fault, requirement_fault_result,
                        stdout_to_stderr, torchvision_targets)
from script_check import result, run

CHECK = "fake-device"
FIX = "make the fake (Meta) kernel create its outputs with the inputs' options (device included), " \
      "e.g. at::empty(sizes, input.options()) / input.new_empty(...), and the real kernel's sizes and dtype"


def fake_mode():
    from torch._subclasses.fake_tensor import FakeTensorMode
    from torch.fx.experimental.symbolic_shapes import ShapeEnv
    # A ShapeEnv lets a data-dependent output size (nms) be a new symbolic size, not an error.
    return FakeTensorMode(shape_env=ShapeEnv())


def fake_cuda(torch, value):
    """The fake CUDA twin of a CPU argument (a factory call under the mode needs no driver)."""
    if isinstance(value, torch.Tensor):
        return torch.empty_strided(value.shape, value.stride(), dtype=value.dtype, device="cuda")
    if isinstance(value, (list, tuple)):
        return type(value)(fake_cuda(torch, v) for v in value)
    return value


def flat_tensors(torch, value):
    if isinstance(value, torch.Tensor):
        return [value]
    if isinstance(value, (list, tuple)):
        return [t for v in value for t in flat_tensors(torch, v)]
    return []


def mismatch(torch, fake, real):
    """(why the fake outputs differ from the real ones or None, whether a size was symbolic)."""
    from torch.fx.experimental.symbolic_shapes import is_concrete_int
    fakes, reals = flat_tensors(torch, fake), flat_tensors(torch, real)
    if len(fakes) != len(reals):
        return "%d fake output tensor(s), the real kernel gives %d" % (len(fakes), len(reals)), False
    symbolic = False
    for i, (f, r) in enumerate(zip(fakes, reals)):
        if f.device.type != "cuda":
            return "output %d is on %s, not cuda (the inputs are)" % (i, f.device), symbolic
        if f.dtype != r.dtype:
            return "output %d has dtype %s, the real kernel gives %s" % (i, f.dtype, r.dtype), symbolic
        if len(f.shape) != len(r.shape):
            return "output %d has %d dims, the real kernel gives %d" % (i, len(f.shape), len(r.shape)), symbolic
        for d, (fd, rd) in enumerate(zip(f.shape, r.shape)):
            if not is_concrete_int(fd):
                symbolic = True  # a data-dependent size: any real size matches it
            elif int(fd) != rd:
                return "output %d has shape %s, the real kernel gives %s" % (
                    i, [str(x) for x in f.shape], list(r.shape)), symbolic
    return None, symbolic


def check_op(torch, name, samples):
    symbolic = False
    for s in samples:
        try:
            real = s.op(*s.args, **s.kwargs)
        except Exception as e:  # noqa: BLE001
            return result(CHECK, "error", "the op fails eagerly on CPU on %s: %s" % (s.description, excerpt(e)),
                          op=name, sample=s.description)
        plain = [a.detach() if isinstance(a, torch.Tensor) else a for a in s.args]  # real tensors stay outside the mode
        try:
            with fake_mode():
                args = fake_cuda(torch, plain)
                kwargs = {k: fake_cuda(torch, v) for k, v in s.kwargs.items()}
                fake = s.op(*args, **kwargs)
                why, sym = mismatch(torch, fake, real)
        except Exception as e:  # noqa: BLE001 - the propagation error is the finding
            # Unless a requirement of the project broke torch's fake-tensor machinery (torch-blocksparse
            # 1.1.1's unpinned triton 3.9 beside Debian's CUDA torch 2.6: "cannot import name
            # 'AttrsDescriptor' from 'triton.compiler.compiler'"), as opcheck, compile and export say.
            fault = requirement_at_fault(e)
            if fault:
                return requirement_fault_result(CHECK, fault, e, op=name, sample=s.description)
            return result(CHECK, "fail", "on fake CUDA tensors, %s raises %s" % (s.description, excerpt(e)),
                          kind="fake_device", fix=FIX, op=name, sample=s.description)
        if why:  # the fake kernel ran and answered wrong: a wrong result (fake_device.yaml)
            return result(CHECK, "fail", "on fake CUDA tensors, %s: %s" % (s.description, why),
                          kind="fake_device_mismatch", fix=FIX, op=name, sample=s.description)
        symbolic = symbolic or sym
    note = "; symbolic (data-dependent) sizes count as matching" if symbolic else ""
    return result(CHECK, "pass", "%d sample(s) on fake CUDA tensors give cuda outputs with the CPU kernel's "
                  "dtype and shape%s" % (len(samples), note), op=name)


def cannot_fake(torch):
    """Why fake CUDA tensors cannot be made in this torch, or None when they can."""
    if torch.version.cuda is None:
        return "torch %s is a CPU-only build (torch.version.cuda is None): no fake CUDA tensors" % torch.__version__
    try:
        with fake_mode():
            torch.empty(1, device="cuda")
    except Exception as e:  # noqa: BLE001
        return "torch %s cannot make fake CUDA tensors: %s" % (torch.__version__, excerpt(e))
    return None


def report(libraries):
    cell = Cell()
    targets, checks = cell_targets(CHECK, cell, libraries)
    tv_targets, tv_problems = torchvision_targets(CHECK)
    return judge_each_op(CHECK, cell, (targets + tv_targets, checks + tv_problems), cannot_fake, check_op)


if __name__ == "__main__":
    run(CHECK, stdout_to_stderr(lambda: report(sys.argv[1:])))
