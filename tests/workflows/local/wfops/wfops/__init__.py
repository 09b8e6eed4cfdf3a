"""wfops: scale(x, s) = x * s, a compiled op (torch.ops.wfops.scale)."""
import torch

from . import _C  # noqa: F401 - the built extension: registers wfops::scale


def scale(x, s):
    return torch.ops.wfops.scale(x, s)
