// Fixed-seed inputs shared by the nms / roi_align cases (correctness, gradient, meta, device).
#pragma once

#include <ATen/core/Tensor.h>
#include <c10/core/ScalarType.h>

#include <cstdint>
#include <vector>

namespace opmatrix::cases {

// Standard-normal values drawn in double from `seed`, then cast to dtype: the same input in
// every dtype a case runs in.
at::Tensor seededRandn(std::vector<int64_t> sizes, uint64_t seed, at::ScalarType dtype = at::kDouble);

// n boxes (x1, y1, x2, y2) in a `extent` x `extent` image with sides in [min_side,
// max_side), clustered around a few centres so that many overlap; plus scores in [0, 1).
struct Boxes {
  at::Tensor boxes, scores;
};
Boxes randomBoxes(int64_t n, uint64_t seed, at::ScalarType dtype = at::kFloat,
                  double extent = 200.0, double min_side = 4.0, double max_side = 60.0);

// k rois [k, 5] (batch index, x1, y1, x2, y2) over a batch of `batch` images of
// height x width *input* pixels at spatial_scale: mixes rois inside the image, rois
// crossing or lying outside its borders, zero-area and inverted (x2 < x1) rois.
at::Tensor randomRois(int64_t k, int64_t batch, int64_t height, int64_t width,
                      double spatial_scale, uint64_t seed, at::ScalarType dtype = at::kFloat);

}  // namespace opmatrix::cases
