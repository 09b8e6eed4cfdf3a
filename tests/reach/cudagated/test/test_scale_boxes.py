import torch

import cudagated


def test_scale_boxes_fallback_on_cpu():
    boxes = torch.tensor([[0.0, 1.0, 2.0, 3.0]])
    assert torch.equal(cudagated.scale_boxes(boxes, 2.0), torch.tensor([[0.0, 2.0, 4.0, 6.0]]))
