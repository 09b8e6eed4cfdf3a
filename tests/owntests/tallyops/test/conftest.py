import pytest
import torch


@pytest.fixture
def ramp():
    return torch.arange(6, dtype=torch.float32)
