import torch

import reachops


def test_double_it():
    assert torch.equal(reachops.double_it(torch.ones(3)), torch.full((3,), 2.0))


def test_half_it():
    assert torch.equal(reachops.half_it(torch.ones(3)), torch.full((3,), 0.5))
