#include "reference/roi_align.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <cmath>

namespace opmatrix::reference {
namespace {

// Bilinear taps along one axis for sample coordinates `v` (double, 1-D) on an axis of
// length `size`: low/high indices and weights, with weights 0 where the sample is outside.
struct AxisTaps {
  at::Tensor lo, hi, w_lo, w_hi;
};

AxisTaps axisTaps(at::Tensor v, int64_t size) {
  const at::Tensor inside = v.ge(-1.0).logical_and(v.le(static_cast<double>(size)));
  v = v.clamp_min(0.0);
  at::Tensor lo = v.floor().to(at::kLong);
  const at::Tensor at_edge = lo.ge(size - 1);
  lo = at::where(at_edge, at::full_like(lo, size - 1), lo);
  const at::Tensor hi = at::where(at_edge, lo, lo + 1);
  v = at::where(at_edge, lo.to(at::kDouble), v);
  const at::Tensor frac = v - lo.to(at::kDouble);
  const at::Tensor mask = inside.to(at::kDouble);
  // Indices of outside samples are irrelevant (weight 0) but must be in range.
  return {lo.clamp(0, size - 1), hi.clamp(0, size - 1), (1.0 - frac) * mask, frac * mask};
}

}  // namespace

at::Tensor roiAlign(const at::Tensor& input, const at::Tensor& rois, double spatial_scale,
                    int64_t pooled_height, int64_t pooled_width, int64_t sampling_ratio,
                    bool aligned) {
  const at::Tensor in = input.cpu().to(at::kDouble).contiguous();
  const at::Tensor r = rois.cpu().to(at::kDouble).contiguous();
  const int64_t num_rois = r.size(0), channels = in.size(1), height = in.size(2), width = in.size(3);
  at::Tensor out = at::zeros({num_rois, channels, pooled_height, pooled_width}, in.options());
  if (out.numel() == 0 || in.numel() == 0) return out.to(input.scalar_type());
  const auto box = r.accessor<double, 2>();
  const double offset = aligned ? 0.5 : 0.0;

  for (int64_t k = 0; k < num_rois; ++k) {
    const auto batch = static_cast<int64_t>(box[k][0]);
    const double x1 = box[k][1] * spatial_scale - offset, y1 = box[k][2] * spatial_scale - offset;
    const double x2 = box[k][3] * spatial_scale - offset, y2 = box[k][4] * spatial_scale - offset;
    double roi_w = x2 - x1, roi_h = y2 - y1;
    if (!aligned) {
      roi_w = std::max(roi_w, 1.0);
      roi_h = std::max(roi_h, 1.0);
    }
    const double bin_h = roi_h / pooled_height, bin_w = roi_w / pooled_width;
    const int64_t grid_h = sampling_ratio > 0 ? sampling_ratio
                                              : static_cast<int64_t>(std::ceil(roi_h / pooled_height));
    const int64_t grid_w = sampling_ratio > 0 ? sampling_ratio
                                              : static_cast<int64_t>(std::ceil(roi_w / pooled_width));
    if (grid_h <= 0 || grid_w <= 0) continue;  // no samples: the bin is 0

    const auto dbl = at::TensorOptions().dtype(at::kDouble);
    // Sample coordinates, ordered (ph, iy) and (pw, ix).
    const at::Tensor ys = (y1 + at::arange(pooled_height, dbl).unsqueeze(1) * bin_h +
                           (at::arange(grid_h, dbl) + 0.5).unsqueeze(0) * (bin_h / grid_h)).reshape(-1);
    const at::Tensor xs = (x1 + at::arange(pooled_width, dbl).unsqueeze(1) * bin_w +
                           (at::arange(grid_w, dbl) + 0.5).unsqueeze(0) * (bin_w / grid_w)).reshape(-1);
    const AxisTaps ty = axisTaps(ys, height), tx = axisTaps(xs, width);

    const at::Tensor plane = in[batch];  // [C, H, W]
    const at::Tensor rows_lo = plane.index_select(1, ty.lo), rows_hi = plane.index_select(1, ty.hi);
    const at::Tensor v_ll = rows_lo.index_select(2, tx.lo), v_lh = rows_lo.index_select(2, tx.hi);
    const at::Tensor v_hl = rows_hi.index_select(2, tx.lo), v_hh = rows_hi.index_select(2, tx.hi);
    const auto outer = [](const at::Tensor& a, const at::Tensor& b) { return a.unsqueeze(1) * b.unsqueeze(0); };
    const at::Tensor samples = outer(ty.w_lo, tx.w_lo) * v_ll + outer(ty.w_lo, tx.w_hi) * v_lh +
                               outer(ty.w_hi, tx.w_lo) * v_hl + outer(ty.w_hi, tx.w_hi) * v_hh;
    out[k] = samples.view({channels, pooled_height, grid_h, pooled_width, grid_w})
                 .sum(at::IntArrayRef{2, 4}) / static_cast<double>(grid_h * grid_w);
  }
  return out.to(input.scalar_type());
}

}  // namespace opmatrix::reference
