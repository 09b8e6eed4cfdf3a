"""Sample inputs of reachops' ops, as `opmatrix init` writes them: half_it is defined by a function
pointer, so init read no schema for it and left its call for the maintainer to write."""
import torch


def samples(device):
    return [
        ("reachops::double_it", (torch.rand(4, 4, device=device),), {}),
        # ("reachops::half_it", (...), {}),  # init could not read its schema: add its call
    ]
