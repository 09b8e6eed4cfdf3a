// Schemas of opmatrix::roi_align and opmatrix::_roi_align_backward, exactly torchvision's
// argument order and semantics, with plain `int` (torchvision ≥ 0.16 writes SymInt, which
// torch 1.13's schema parser does not accept).
#include "ops/tensor_api.h"

#ifndef OPMATRIX_STABLE_ABI  // the C++ callers (autograd and tests) are ATen code
#include "ops/roi_align.h"
#include "ops/typed_op.h"
#endif

namespace opmatrix {

#ifndef OPMATRIX_STABLE_ABI
at::Tensor roi_align(const at::Tensor& input, const at::Tensor& rois, double spatial_scale,
                     int64_t pooled_height, int64_t pooled_width, int64_t sampling_ratio,
                     bool aligned) {
  static auto op = typed_op<decltype(roi_align)>("opmatrix::roi_align");
  return op.call(input, rois, spatial_scale, pooled_height, pooled_width, sampling_ratio, aligned);
}

namespace detail {

at::Tensor _roi_align_backward(const at::Tensor& grad, const at::Tensor& rois,
                               double spatial_scale, int64_t pooled_height, int64_t pooled_width,
                               int64_t batch_size, int64_t channels, int64_t height,
                               int64_t width, int64_t sampling_ratio, bool aligned) {
  static auto op = typed_op<decltype(_roi_align_backward)>("opmatrix::_roi_align_backward");
  return op.call(grad, rois, spatial_scale, pooled_height, pooled_width, batch_size, channels,
                 height, width, sampling_ratio, aligned);
}

}  // namespace detail
#endif

OPMATRIX_LIBRARY_FRAGMENT(m) {
  m.def("roi_align(Tensor input, Tensor rois, float spatial_scale, int pooled_height, "
      "int pooled_width, int sampling_ratio, bool aligned) -> Tensor");
  m.def("_roi_align_backward(Tensor grad, Tensor rois, float spatial_scale, "
      "int pooled_height, int pooled_width, int batch_size, int channels, int height, "
      "int width, int sampling_ratio, bool aligned) -> Tensor");
}

}  // namespace opmatrix
