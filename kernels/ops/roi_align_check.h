// Argument checks shared by every roi_align kernel (CPU, CUDA, Meta), so all backends reject
// the same inputs with the same messages.
#pragma once

#include "ops/tensor_api.h"

namespace opmatrix {

inline void roi_align_check(const api::Tensor& input, const api::Tensor& rois,
                            int64_t pooled_height, int64_t pooled_width) {
  OPMATRIX_CHECK(input.dim() == 4, "roi_align: input must be a 4d tensor [N, C, H, W], got ",
              input.dim(), "D");
  OPMATRIX_CHECK(rois.dim() == 2 && rois.size(1) == 5,
              "roi_align: rois must have shape [K, 5] (batch index, x1, y1, x2, y2), got ",
              api::sizes_text(rois));
  OPMATRIX_CHECK(input.scalar_type() == rois.scalar_type(),
              "roi_align: input and rois must have the same dtype, got ", input.scalar_type(),
              " and ", rois.scalar_type());
  OPMATRIX_CHECK(api::same_device(input, rois), "roi_align: input and rois must be on the same "
              "device, got ", api::device_text(input), " and ", api::device_text(rois));
  OPMATRIX_CHECK(pooled_height >= 0 && pooled_width >= 0,
              "roi_align: pooled_height and pooled_width must not be negative, got ", pooled_height,
              " and ", pooled_width);
}

inline void roi_align_backward_check(const api::Tensor& grad, const api::Tensor& rois,
                                     int64_t pooled_height, int64_t pooled_width,
                                     int64_t batch_size, int64_t channels, int64_t height,
                                     int64_t width) {
  OPMATRIX_CHECK(rois.dim() == 2 && rois.size(1) == 5,
              "roi_align backward: rois must have shape [K, 5], got ", api::sizes_text(rois));
  OPMATRIX_CHECK(grad.dim() == 4 && grad.size(0) == rois.size(0) && grad.size(1) == channels &&
                  grad.size(2) == pooled_height && grad.size(3) == pooled_width,
              "roi_align backward: grad must have shape [K, channels, pooled_height, "
              "pooled_width] = [", rois.size(0), ", ", channels, ", ", pooled_height, ", ",
              pooled_width, "], got ", api::sizes_text(grad));
  OPMATRIX_CHECK(batch_size >= 0 && height >= 0 && width >= 0,
              "roi_align backward: negative input size");
  OPMATRIX_CHECK(grad.scalar_type() == rois.scalar_type(),
              "roi_align backward: grad and rois must have the same dtype, got ",
              grad.scalar_type(), " and ", rois.scalar_type());
  OPMATRIX_CHECK(api::same_device(grad, rois), "roi_align backward: grad and rois must be on "
              "the same device, got ", api::device_text(grad), " and ", api::device_text(rois));
}

}  // namespace opmatrix
