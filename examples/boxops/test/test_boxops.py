import pytest
import torch


def test_box_area_of_a_box_and_an_inverted_one(boxes):
    assert torch.ops.boxops.box_area(boxes).tolist() == [4.0, 6.0, 0.0]


def test_box_iou_of_overlapping_boxes(boxes):
    iou = torch.ops.boxops.box_iou(boxes[:2], boxes[:2])
    assert iou[0, 1].item() == pytest.approx(1.0 / 9.0)
    assert torch.allclose(iou.diagonal(), torch.ones(2))


def test_box_iou_on_meta_tensors_gives_the_shape(boxes):
    out = torch.ops.boxops.box_iou(boxes.to("meta"), boxes[:2].to("meta"))
    assert out.shape == (3, 2) and out.device.type == "meta"


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA: no GPU visible")
def test_box_iou_on_cuda_agrees_with_cpu(boxes):
    assert torch.allclose(torch.ops.boxops.box_iou(boxes.cuda(), boxes.cuda()).cpu(),
                          torch.ops.boxops.box_iou(boxes, boxes))
