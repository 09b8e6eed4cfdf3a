// Meta kernels of opmatrix::roi_align and its backward: output sizes, dtype and device only,
// after the same argument checks as the real kernels. This is what FakeTensor /
// torch.compile trace with.
#define TORCH_ASSERT_ONLY_METHOD_OPERATORS
#include <ATen/core/Tensor.h>
#include <ATen/ops/empty.h>
#include <torch/library.h>

#include "ops/roi_align_check.h"

namespace opmatrix {
namespace {

at::Tensor roi_align_meta(const at::Tensor& input, const at::Tensor& rois, double /*spatial_scale*/,
                          int64_t pooled_height, int64_t pooled_width, int64_t /*sampling_ratio*/,
                          bool /*aligned*/) {
  roi_align_check(input, rois, pooled_height, pooled_width);
  return at::empty({rois.size(0), input.size(1), pooled_height, pooled_width}, input.options());
}

at::Tensor roi_align_backward_meta(const at::Tensor& grad, const at::Tensor& rois,
                                   double /*spatial_scale*/, int64_t pooled_height,
                                   int64_t pooled_width, int64_t batch_size, int64_t channels,
                                   int64_t height, int64_t width, int64_t /*sampling_ratio*/,
                                   bool /*aligned*/) {
  roi_align_backward_check(grad, rois, pooled_height, pooled_width, batch_size, channels, height,
                           width);
  return at::empty({batch_size, channels, height, width}, grad.options());
}

}  // namespace

TORCH_LIBRARY_IMPL(opmatrix, Meta, m) {
  m.impl(TORCH_SELECTIVE_NAME("opmatrix::roi_align"), TORCH_FN(roi_align_meta));
  m.impl(TORCH_SELECTIVE_NAME("opmatrix::_roi_align_backward"), TORCH_FN(roi_align_backward_meta));
}

}  // namespace opmatrix
