import pytest
import torch

import DetrStyleOps


@pytest.mark.parametrize("shape", [(2, 30, 8, 32), (1, 0, 4, 4), (3, 7, 1, 5)])
def test_ms_sum_is_the_sum_over_levels(shape):
    value = torch.randn(*shape, dtype=torch.float64)
    assert torch.allclose(DetrStyleOps.ms_sum(value), value.sum(1))


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA: no GPU visible")
def test_ms_sum_on_cuda_agrees_with_cpu():
    value = torch.randn(2, 30, 8, 32, device="cuda")
    assert torch.allclose(DetrStyleOps.ms_sum(value).cpu(), value.cpu().sum(1), atol=1e-5)
