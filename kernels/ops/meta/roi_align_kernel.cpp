// Meta kernels of opmatrix::roi_align and its backward: output sizes, dtype and device only,
// after the same argument checks as the real kernels. This is what FakeTensor /
// torch.compile trace with.
#define TORCH_ASSERT_ONLY_METHOD_OPERATORS

#include "ops/roi_align_check.h"
#include "ops/tensor_api.h"

namespace opmatrix {
namespace {

api::Tensor roi_align_meta(const api::Tensor& input, const api::Tensor& rois, double /*spatial_scale*/,
                          int64_t pooled_height, int64_t pooled_width, int64_t /*sampling_ratio*/,
                          bool /*aligned*/) {
  roi_align_check(input, rois, pooled_height, pooled_width);
  return api::empty({rois.size(0), input.size(1), pooled_height, pooled_width}, input);
}

api::Tensor roi_align_backward_meta(const api::Tensor& grad, const api::Tensor& rois,
                                   double /*spatial_scale*/, int64_t pooled_height,
                                   int64_t pooled_width, int64_t batch_size, int64_t channels,
                                   int64_t height, int64_t width, int64_t /*sampling_ratio*/,
                                   bool /*aligned*/) {
  roi_align_backward_check(grad, rois, pooled_height, pooled_width, batch_size, channels, height,
                           width);
  return api::empty({batch_size, channels, height, width}, grad);
}

}  // namespace

OPMATRIX_LIBRARY_IMPL(Meta, m) {
  m.impl("roi_align", OPMATRIX_KERNEL(roi_align_meta));
  m.impl("_roi_align_backward", OPMATRIX_KERNEL(roi_align_backward_meta));
}

}  // namespace opmatrix
