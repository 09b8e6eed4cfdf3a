"""opmatrix's op library for Python: `import opmatrix_ops` loads libopmatrix_ops.so from this
module's folder (or $OPMATRIX_OPS_LIBRARY, e.g. the stable-ABI build) unless its ops are already
registered, then registers the fake kernels C++ cannot express.

nms keeps a data-dependent number of boxes. A fake kernel (what FakeTensor, torch.compile,
torch.export and torch.library.opcheck run instead of the real one) must then give an
*unbacked* symbolic size, which only Python can make; the library's C++ schema names this module
(set_python_module / impl_abstract_pystub) so that torch accepts the registration and points
users here when it is missing. How to register and how to make the size changed over torch's
versions: the tables below are tried in order, and a torch with none of them is told in a
warning, never silently given a made-up size.

`registered()` says what happened for each op: "registered", or why not."""
import importlib
import os
import warnings

import torch

LIBRARY = "libopmatrix_ops.so"
NAMESPACE = "opmatrix"

# Where a torch keeps its API for a Python fake kernel of an op defined in C++, newest first:
# torch.library.register_fake (2.4+), torch.library.impl_abstract (2.2-2.3, deprecated after),
# torch._custom_ops.impl_abstract (2.1, the prototype of the same).
REGISTRARS = (("torch.library", "register_fake"), ("torch.library", "impl_abstract"),
              ("torch._custom_ops", "impl_abstract"))
# The context a fake kernel asks for a new data-dependent size, and its method's name.
CONTEXT_GETTERS = (("torch.library", "get_ctx"), ("torch._custom_ops", "get_ctx"))
SIZE_METHODS = ("new_dynamic_size", "create_unbacked_symint")

_outcome = {}


def first_attribute(table):
    """The first (module, name) of `table` that this torch has, as an object; else None."""
    for module_name, name in table:
        try:
            module = importlib.import_module(module_name)
        except ImportError:
            continue
        if hasattr(module, name):
            return getattr(module, name)
    return None


def new_dynamic_size():
    """A new unbacked size from the running fake kernel's context."""
    ctx = first_attribute(CONTEXT_GETTERS)()
    for method in SIZE_METHODS:
        if hasattr(ctx, method):
            return getattr(ctx, method)()
    raise RuntimeError("torch %s's fake-kernel context has none of %s" % (torch.__version__, ", ".join(SIZE_METHODS)))


def nms_fake(dets, scores, iou_threshold):
    # The checks of every backend (kernels/ops/nms_check.h), in torchvision's words.
    torch._check(dets.dim() == 2, lambda: "boxes should be a 2d tensor, got %dD" % dets.dim())
    torch._check(dets.size(1) == 4, lambda: "boxes should have 4 elements in dimension 1, got %s" % dets.size(1))
    torch._check(scores.dim() == 1, lambda: "scores should be a 1d tensor, got %dD" % scores.dim())
    torch._check(dets.size(0) == scores.size(0), lambda: "boxes and scores should have same number of "
                 "elements in dimension 0, got %s and %s" % (dets.size(0), scores.size(0)))
    torch._check(dets.dtype == scores.dtype, lambda: "boxes and scores should have the same dtype, got %s and %s"
                 % (dets.dtype, scores.dtype))
    torch._check(dets.device == scores.device, lambda: "boxes and scores should be on the same device, got %s "
                 "and %s" % (dets.device, scores.device))
    torch._check(dets.is_floating_point(), lambda: "nms: boxes must be floating point, got %s" % dets.dtype)
    return dets.new_empty((new_dynamic_size(),), dtype=torch.long)


FAKE_KERNELS = {"nms": nms_fake}


def ops_registered():
    try:
        getattr(getattr(torch.ops, NAMESPACE), next(iter(FAKE_KERNELS))).default
        return True
    except (AttributeError, RuntimeError):
        return False


def load_library():
    if not ops_registered():
        here = os.path.dirname(os.path.abspath(__file__))
        torch.ops.load_library(os.environ.get("OPMATRIX_OPS_LIBRARY") or os.path.join(here, LIBRARY))


def has_cpp_meta_kernel(qualname):
    has = getattr(torch._C, "_dispatch_has_kernel_for_dispatch_key", None)
    return bool(has and has(qualname, "Meta"))


def register_fakes():
    registrar = first_attribute(REGISTRARS)
    for op, kernel in FAKE_KERNELS.items():
        qualname = "%s::%s" % (NAMESPACE, op)
        if has_cpp_meta_kernel(qualname):
            _outcome[op] = ("the loaded library has a C++ Meta kernel for %s (built where it could not name this "
                            "module: torch < 2.2, or a stable-ABI target < 2.13), which refuses meta tensors in words; left "
                            "as it is" % qualname)
        elif registrar is None:
            _outcome[op] = ("torch %s has no API for a Python fake kernel (torch.library.register_fake, "
                            "impl_abstract: torch >= 2.1): %s cannot run on fake tensors, so FakeTensor, "
                            "torch.compile and torch.export cannot trace it" % (torch.__version__, qualname))
            warnings.warn("opmatrix_ops: " + _outcome[op])
        else:
            registrar(qualname)(kernel)
            _outcome[op] = "registered"


def registered():
    """{op: "registered" or why its fake kernel is not this module's}."""
    return dict(_outcome)


def unavailable_fakes():
    """{op: why} for the ops that have no working fake kernel in this torch (what traces with
    fake tensors cannot run them here: a limit of this torch, said, never a made-up size)."""
    return {op: "%s has no fake kernel in torch %s (a data-dependent size needs torch >= 2.2 for both the "
                "library and this module): %s" % (op, torch.__version__, why)
            for op, why in _outcome.items() if why != "registered"}


load_library()
register_fakes()
