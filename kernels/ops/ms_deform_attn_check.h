// Argument checks and output geometry of ms_deform_attn, shared by every backend so the
// CPU, CUDA and Meta kernels accept the same inputs and agree on the output size.
#pragma once

#include "ops/tensor_api.h"

#include <cstdint>

namespace opmatrix {
namespace ms_deform_attn_geometry {

struct Geometry {
  int64_t batch, spatial, heads, channels;  // value [N, S, M, D]
  int64_t queries, levels, points;          // sampling_loc [N, Lq, M, L, P, 2]
};

inline Geometry check(const api::Tensor& value, const api::Tensor& spatial_shapes,
                      const api::Tensor& level_start_index, const api::Tensor& sampling_loc,
                      const api::Tensor& attn_weight, int64_t im2col_step) {
  OPMATRIX_CHECK(value.dim() == 4, "ms_deform_attn: value must be [N, S, M, D], got ", value.dim(), "-D");
  OPMATRIX_CHECK(sampling_loc.dim() == 6 && sampling_loc.size(5) == 2,
              "ms_deform_attn: sampling_loc must be [N, Lq, M, L, P, 2]");
  OPMATRIX_CHECK(attn_weight.dim() == 5, "ms_deform_attn: attn_weight must be [N, Lq, M, L, P]");
  OPMATRIX_CHECK(spatial_shapes.dim() == 2 && spatial_shapes.size(1) == 2,
              "ms_deform_attn: spatial_shapes must be [L, 2]");
  OPMATRIX_CHECK(level_start_index.dim() == 1, "ms_deform_attn: level_start_index must be [L]");
  OPMATRIX_CHECK(spatial_shapes.scalar_type() == api::kLong && level_start_index.scalar_type() == api::kLong,
              "ms_deform_attn: spatial_shapes and level_start_index must be int64");
  OPMATRIX_CHECK(im2col_step > 0, "ms_deform_attn: im2col_step must be > 0, got ", im2col_step);

  const Geometry g{value.size(0),        value.size(1),        value.size(2), value.size(3),
                   sampling_loc.size(1), sampling_loc.size(3), sampling_loc.size(4)};

  OPMATRIX_CHECK(spatial_shapes.size(0) == g.levels && level_start_index.size(0) == g.levels,
              "ms_deform_attn: spatial_shapes/level_start_index have ", spatial_shapes.size(0),
              " levels, sampling_loc has ", g.levels);
  OPMATRIX_CHECK(sampling_loc.size(0) == g.batch && sampling_loc.size(2) == g.heads,
              "ms_deform_attn: sampling_loc batch/heads differ from value's");
  OPMATRIX_CHECK(attn_weight.size(0) == g.batch && attn_weight.size(1) == g.queries &&
                  attn_weight.size(2) == g.heads && attn_weight.size(3) == g.levels &&
                  attn_weight.size(4) == g.points,
              "ms_deform_attn: attn_weight must be [N, Lq, M, L, P] matching sampling_loc");
  return g;
}

// The forward's output, [N, Lq, M * D], uninitialised, with value's dtype and device.
inline api::Tensor empty_output(const Geometry& g, const api::Tensor& value) {
  return api::empty({g.batch, g.queries, g.heads * g.channels}, value);
}

// The backward's grad_output must have the forward output's shape.
inline void check_grad_output(const Geometry& g, const api::Tensor& grad_output) {
  OPMATRIX_CHECK(grad_output.dim() == 3 && grad_output.size(0) == g.batch &&
                  grad_output.size(1) == g.queries && grad_output.size(2) == g.heads * g.channels,
              "ms_deform_attn backward: grad_output must be [N, Lq, M * D]");
}

// Host-side check that the levels tile value's S dimension; needs CPU index tensors.
inline void check_levels_cpu(const int64_t* shapes, const int64_t* starts, int64_t levels,
                             int64_t spatial) {
  int64_t expected = 0;
  for (int64_t l = 0; l < levels; ++l) {
    OPMATRIX_CHECK(shapes[2 * l] >= 0 && shapes[2 * l + 1] >= 0, "ms_deform_attn: negative level shape");
    OPMATRIX_CHECK(starts[l] == expected, "ms_deform_attn: level_start_index[", l, "] = ", starts[l],
                ", expected ", expected, " from spatial_shapes");
    expected += shapes[2 * l] * shapes[2 * l + 1];
  }
  OPMATRIX_CHECK(expected == spatial, "ms_deform_attn: spatial_shapes cover ", expected,
              " positions but value has S = ", spatial);
}

}  // namespace ms_deform_attn_geometry
}  // namespace opmatrix
