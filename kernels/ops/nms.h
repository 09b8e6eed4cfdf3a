// C++ entry point of opmatrix::nms (through the dispatcher, like torchvision's ops/nms.h).
#pragma once

#include <ATen/core/Tensor.h>

namespace opmatrix {

// Indices (int64) of the boxes kept by greedy non-maximum suppression, by decreasing score.
// dets: [N, 4] (x1, y1, x2, y2); scores: [N]; suppresses IoU > iou_threshold.
at::Tensor nms(const at::Tensor& dets, const at::Tensor& scores, double iou_threshold);

}  // namespace opmatrix
