// C++ entry points of opmatrix::roi_align and its backward (through the dispatcher, like
// torchvision's ops/roi_align.h).
#pragma once

#include <ATen/core/Tensor.h>

namespace opmatrix {

// input [N, C, H, W]; rois [K, 5] (batch index, x1, y1, x2, y2) -> [K, C, pooled_h, pooled_w].
at::Tensor roi_align(const at::Tensor& input, const at::Tensor& rois, double spatial_scale,
                     int64_t pooled_height, int64_t pooled_width, int64_t sampling_ratio,
                     bool aligned);

namespace detail {

// Gradient with respect to input ([batch_size, channels, height, width]).
at::Tensor _roi_align_backward(const at::Tensor& grad, const at::Tensor& rois,
                               double spatial_scale, int64_t pooled_height, int64_t pooled_width,
                               int64_t batch_size, int64_t channels, int64_t height,
                               int64_t width, int64_t sampling_ratio, bool aligned);

}  // namespace detail
}  // namespace opmatrix
