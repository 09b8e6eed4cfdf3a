// Independent reference for roi_align, written from its definition with plain ATen ops, in
// double: each output bin is the mean of grid_h x grid_w bilinear samples at
//   y = y1 + ph * bin_h + (iy + 0.5) * bin_h / grid_h   (x likewise),
// with roi corners scaled by spatial_scale and shifted by -0.5 when aligned; unaligned rois
// are at least 1x1; grid = sampling_ratio, or ceil(roi size / pooled size) when it is <= 0.
// A sample outside [-1, size] on either axis contributes 0 but still counts in the mean;
// inside, coordinates are clamped to [0, size - 1]. Shares no code with kernels/.
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>

namespace opmatrix::reference {

// [K, C, pooled_height, pooled_width] in input's dtype (computed in double).
at::Tensor roiAlign(const at::Tensor& input, const at::Tensor& rois, double spatial_scale,
                    int64_t pooled_height, int64_t pooled_width, int64_t sampling_ratio,
                    bool aligned);

}  // namespace opmatrix::reference
