"""gpugated: torch.ops.gpugated.scale(x, s) = x * s, with CPU (C++), CUDA (when built with
it) and fake/Meta (Python) kernels."""
import pkgutil

# Lets `gpugated._C` come from another copy of this package on sys.path: an installed wheel
# or `setup.py build_ext --build-lib BUILD/lib`, while these sources are imported from the
# project folder (smoke.py runs there).
__path__ = pkgutil.extend_path(__path__, __name__)

import torch  # noqa: E402  (the extension needs torch's libraries loaded first)

from . import _C  # noqa: E402,F401  registers gpugated::scale (schema, CPU and CUDA kernels)
from . import ops  # noqa: E402,F401  registers its fake kernel
from .ops import scale  # noqa: E402,F401
