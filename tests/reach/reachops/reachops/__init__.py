"""reachops (tests/reach): importing it loads no compiled code; `reachops.functional` imports the
extension module reachops._C when first called, and torch.ops.reachops.* exist from then on."""
from .functional import double_it, half_it  # noqa: F401

__version__ = "0.1.0"
