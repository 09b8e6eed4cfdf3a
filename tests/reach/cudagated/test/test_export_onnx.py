# Needs onnx, which cudagated does not require and the matrix's test_requires does not install:
# this file cannot be collected in the cell, and the suite's other tests still run.
import onnx  # noqa: F401
import torch

import cudagated


def test_export_scale_boxes(tmp_path):
    class Scale(torch.nn.Module):
        def forward(self, boxes):
            return cudagated.scale_boxes(boxes, 2.0)

    torch.onnx.export(Scale(), (torch.ones(1, 4),), str(tmp_path / "scale.onnx"))
