"""The ops as functions: the compiled extension is imported on first use, not at import time."""
import importlib

import torch


def _ops():
    importlib.import_module("reachops._C")  # registers torch.ops.reachops.*
    return torch.ops.reachops


def double_it(x):
    return _ops().double_it(x)


def half_it(x):
    return _ops().half_it(x)
