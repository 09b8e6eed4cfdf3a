// How the nms / roi_align cases call the ops under test: by name through the dispatcher
// (as torch.ops and C++ users do after loading the library), so the call reaches whichever
// kernel the inputs' device, dtype and requires_grad select. The library must be loaded
// first (OPMATRIX_REQUIRE_OPS()).
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>

#include "common/dispatch.h"

namespace opmatrix::cases {

using NmsSig = at::Tensor(const at::Tensor&, const at::Tensor&, double);
using RoiAlignSig = at::Tensor(const at::Tensor&, const at::Tensor&, double, int64_t, int64_t,
                               int64_t, bool);
using RoiAlignBackwardSig = at::Tensor(const at::Tensor&, const at::Tensor&, double, int64_t,
                                       int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, bool);

inline at::Tensor callNms(const at::Tensor& boxes, const at::Tensor& scores, double iou_threshold) {
  static const auto op = typedOp<NmsSig>("opmatrix::nms");
  return op.call(boxes, scores, iou_threshold);
}

struct RoiAlignArgs {
  double spatial_scale = 1.0;
  int64_t pooled_height = 2, pooled_width = 2, sampling_ratio = -1;
  bool aligned = false;
};

inline at::Tensor callRoiAlign(const at::Tensor& input, const at::Tensor& rois, const RoiAlignArgs& a) {
  static const auto op = typedOp<RoiAlignSig>("opmatrix::roi_align");
  return op.call(input, rois, a.spatial_scale, a.pooled_height, a.pooled_width, a.sampling_ratio,
                 a.aligned);
}

inline at::Tensor callRoiAlignBackward(const at::Tensor& grad, const at::Tensor& rois,
                                       const RoiAlignArgs& a, at::IntArrayRef input_sizes) {
  static const auto op = typedOp<RoiAlignBackwardSig>("opmatrix::_roi_align_backward");
  return op.call(grad, rois, a.spatial_scale, a.pooled_height, a.pooled_width, input_sizes[0],
                 input_sizes[1], input_sizes[2], input_sizes[3], a.sampling_ratio, a.aligned);
}

}  // namespace opmatrix::cases
