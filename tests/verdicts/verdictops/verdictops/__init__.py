"""verdictops (tests/verdicts): importing it registers the C++ ops (its _C extension) and, only
where a GPU is visible, one more op from Python, the way torchao registers some of its own."""
import torch

from . import _C  # noqa: F401  registers verdictops::* (TORCH_LIBRARY in csrc/ops.cpp)

if torch.cuda.is_available():
    _lib = torch.library.Library("verdictops", "FRAGMENT")
    _lib.define("gpu_gated(Tensor x) -> Tensor")
    _lib.impl("gpu_gated", lambda x: x * 3, "CUDA")
