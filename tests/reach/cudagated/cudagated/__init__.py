"""cudagated (tests/reach): scale_boxes runs the CUDA extension where it was built, else its
PyTorch fallback (with a warning, as the libraries whose setup.py skips CUDA do)."""
import warnings

import torch

try:
    from . import _C  # noqa: F401  registers cudagated::scale_boxes (CUDA)
    HAS_EXTENSION = True
except ImportError:
    HAS_EXTENSION = False
    warnings.warn("cudagated: no compiled extension (built without CUDA): using the PyTorch fallback")


def scale_boxes(boxes, factor):
    if HAS_EXTENSION and boxes.is_cuda:
        return torch.ops.cudagated.scale_boxes(boxes, factor)
    return boxes * factor
