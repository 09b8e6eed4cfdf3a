// Independent reference for nms, written from the definition with plain ATen ops: the full
// pairwise IoU matrix, then the greedy walk in score order (stable: equal scores keep index
// order). Shares no code with kernels/.
#pragma once

#include <ATen/core/Tensor.h>

namespace opmatrix::reference {

// Pairwise IoU [N, N] of boxes [N, 4] (x1, y1, x2, y2), in the boxes' dtype.
at::Tensor boxIou(const at::Tensor& boxes);

// Indices (int64, CPU) kept by greedy NMS: a box is dropped when a kept, higher-ranked box
// has IoU > iou_threshold with it (0/0 IoU, as for two empty boxes, never suppresses).
at::Tensor nms(const at::Tensor& boxes, const at::Tensor& scores, double iou_threshold);

}  // namespace opmatrix::reference
