import pytest
import torch
from torch._subclasses.fake_tensor import FakeTensorMode

import gpugated


def test_scale_matches_plain_torch():
    x = torch.randn(4, 5, dtype=torch.float64)
    assert torch.allclose(gpugated.scale(x, -1.5), x * -1.5)


def test_scale_under_fake_tensors_keeps_shape_dtype_and_device():
    with FakeTensorMode() as mode:
        fake = torch.ops.gpugated.scale(mode.from_tensor(torch.ones(2, 3)), 2.0)
    assert tuple(fake.shape) == (2, 3) and fake.dtype == torch.float32 and fake.device.type == "cpu"


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA: no GPU visible")
def test_scale_on_cuda_agrees_with_cpu():
    y = torch.randn(1000, device="cuda")
    assert torch.allclose(gpugated.scale(y, 3.0).cpu(), y.cpu() * 3.0)
