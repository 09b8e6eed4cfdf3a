"""skbuildops: torch.ops.skbuildops.triple, registered by its compiled module."""
import torch  # noqa: F401 - torch's libraries first, then the module that registers the op

from . import _C  # noqa: F401
