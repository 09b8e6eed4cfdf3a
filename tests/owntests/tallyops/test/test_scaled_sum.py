import pytest
import torch

import tallyops


def test_scaled_sum_matches_torch(ramp):
    assert tallyops.scaled_sum(ramp, 0.5).item() == pytest.approx(7.5)


def test_scaled_sum_on_meta_tensors_keeps_the_dtype(ramp):
    out = tallyops.scaled_sum(ramp.to("meta"), 2.0)
    assert out.shape == () and out.dtype == ramp.dtype and out.device.type == "meta"


def test_the_installed_library_is_the_one_imported():
    assert tallyops._C.__file__.endswith(".so"), tallyops._C.__file__


def test_table_names_each_sum(ramp):
    assert "ramp" in tallyops.table({"ramp": ramp}) and "15" in tallyops.table({"ramp": ramp})


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA: no GPU visible")
def test_scaled_sum_on_cuda(ramp):
    with pytest.raises(NotImplementedError):  # a CPU library: no CUDA kernel, by design
        tallyops.scaled_sum(ramp.cuda(), 1.0)
