// Argument checks shared by every roi_align kernel (CPU, CUDA, Meta), so all backends reject
// the same inputs with the same messages.
#pragma once

#include <ATen/core/Tensor.h>
#include <c10/util/Exception.h>

namespace opmatrix {

inline void roi_align_check(const at::Tensor& input, const at::Tensor& rois,
                            int64_t pooled_height, int64_t pooled_width) {
  TORCH_CHECK(input.dim() == 4, "roi_align: input must be a 4d tensor [N, C, H, W], got ",
              input.dim(), "D");
  TORCH_CHECK(rois.dim() == 2 && rois.size(1) == 5,
              "roi_align: rois must have shape [K, 5] (batch index, x1, y1, x2, y2), got ",
              rois.sizes());
  TORCH_CHECK(input.scalar_type() == rois.scalar_type(),
              "roi_align: input and rois must have the same dtype, got ", input.scalar_type(),
              " and ", rois.scalar_type());
  TORCH_CHECK(input.device() == rois.device(), "roi_align: input and rois must be on the same "
              "device, got ", input.device(), " and ", rois.device());
  TORCH_CHECK(pooled_height >= 0 && pooled_width >= 0,
              "roi_align: pooled_height and pooled_width must not be negative, got ", pooled_height,
              " and ", pooled_width);
}

inline void roi_align_backward_check(const at::Tensor& grad, const at::Tensor& rois,
                                     int64_t pooled_height, int64_t pooled_width,
                                     int64_t batch_size, int64_t channels, int64_t height,
                                     int64_t width) {
  TORCH_CHECK(rois.dim() == 2 && rois.size(1) == 5,
              "roi_align backward: rois must have shape [K, 5], got ", rois.sizes());
  TORCH_CHECK(grad.dim() == 4 && grad.size(0) == rois.size(0) && grad.size(1) == channels &&
                  grad.size(2) == pooled_height && grad.size(3) == pooled_width,
              "roi_align backward: grad must have shape [K, channels, pooled_height, "
              "pooled_width] = [", rois.size(0), ", ", channels, ", ", pooled_height, ", ",
              pooled_width, "], got ", grad.sizes());
  TORCH_CHECK(batch_size >= 0 && height >= 0 && width >= 0,
              "roi_align backward: negative input size");
  TORCH_CHECK(grad.scalar_type() == rois.scalar_type(),
              "roi_align backward: grad and rois must have the same dtype, got ",
              grad.scalar_type(), " and ", rois.scalar_type());
  TORCH_CHECK(grad.device() == rois.device(), "roi_align backward: grad and rois must be on "
              "the same device, got ", grad.device(), " and ", rois.device());
}

}  // namespace opmatrix
