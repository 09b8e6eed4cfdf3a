#include "common/detection_inputs.h"

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>

#include <algorithm>

namespace opmatrix::cases {

at::Tensor seededRandn(std::vector<int64_t> sizes, uint64_t seed, at::ScalarType dtype) {
  auto gen = at::make_generator<at::CPUGeneratorImpl>(seed);
  return at::randn(sizes, gen, at::TensorOptions().dtype(at::kDouble)).to(dtype);
}

Boxes randomBoxes(int64_t n, uint64_t seed, at::ScalarType dtype, double extent, double min_side,
                  double max_side) {
  auto gen = at::make_generator<at::CPUGeneratorImpl>(seed);
  const auto opts = at::TensorOptions().dtype(at::kDouble);
  const int64_t clusters = std::max<int64_t>(1, n / 8);
  const at::Tensor centres = at::rand({clusters, 2}, gen, opts) * extent;
  const at::Tensor pick = at::randint(clusters, {n}, gen, at::TensorOptions().dtype(at::kLong));
  const at::Tensor xy = centres.index_select(0, pick) + at::randn({n, 2}, gen, opts) * (max_side / 4);
  const at::Tensor wh = min_side + at::rand({n, 2}, gen, opts) * (max_side - min_side);
  const at::Tensor boxes = at::cat({xy - wh / 2, xy + wh / 2}, 1);
  return {boxes.to(dtype), at::rand({n}, gen, opts).to(dtype)};
}

at::Tensor randomRois(int64_t k, int64_t batch, int64_t height, int64_t width,
                      double spatial_scale, uint64_t seed, at::ScalarType dtype) {
  auto gen = at::make_generator<at::CPUGeneratorImpl>(seed);
  const auto opts = at::TensorOptions().dtype(at::kDouble);
  // Image extent in roi (input) coordinates, with a margin outside on every side.
  const double h = height / spatial_scale, w = width / spatial_scale;
  const at::Tensor x1 = at::rand({k}, gen, opts) * (1.4 * w) - 0.2 * w;
  const at::Tensor y1 = at::rand({k}, gen, opts) * (1.4 * h) - 0.2 * h;
  const at::Tensor x2 = x1 + at::rand({k}, gen, opts) * 0.6 * w;
  const at::Tensor y2 = y1 + at::rand({k}, gen, opts) * 0.6 * h;
  at::Tensor rois = at::stack({at::randint(batch, {k}, gen, opts), x1, y1, x2, y2}, 1);
  if (k >= 4) {
    // Degenerate rois: zero area, a point on the border, inverted, fully outside.
    rois[0].narrow(0, 3, 2).copy_(rois[0].narrow(0, 1, 2));
    rois[1].narrow(0, 1, 4).copy_(at::tensor({w, h, w, h}, opts));
    rois[2].narrow(0, 1, 4).copy_(at::tensor({0.7 * w, 0.6 * h, 0.2 * w, 0.1 * h}, opts));
    rois[3].narrow(0, 1, 4).copy_(at::tensor({1.5 * w, -0.9 * h, 1.9 * w, -0.5 * h}, opts));
  }
  return rois.to(dtype);
}

}  // namespace opmatrix::cases
