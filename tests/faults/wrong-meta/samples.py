"""Samples of the fault library (tests/faults/wrong-meta): a 1-D float input for each op."""
import torch


def samples(device):
    x = torch.arange(6, dtype=torch.float32, device=device)
    return [("faultmeta::good_shape", (x,), {}), ("faultmeta::bad_shape", (x,), {})]
