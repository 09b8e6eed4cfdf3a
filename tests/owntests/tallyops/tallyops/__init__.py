"""tallyops: scaled_sum, and a table of tallies (with tabulate, its runtime requirement)."""
import torch
from tabulate import tabulate

from . import _C  # noqa: F401 - the built extension: registers tallyops::scaled_sum


def scaled_sum(x, scale):
    return torch.ops.tallyops.scaled_sum(x, scale)


def table(named):
    """{name: tensor} as a text table of each tensor's sum."""
    return tabulate([(name, float(scaled_sum(x, 1.0))) for name, x in sorted(named.items())], headers=["name", "sum"])
