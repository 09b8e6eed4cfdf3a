import torch

import tallyops


def test_scaled_sum_deliberately_broken():
    assert tallyops.scaled_sum(torch.ones(3), 2.0).item() == 7.0, "three ones scaled by 2 sum to 6, not 7"
