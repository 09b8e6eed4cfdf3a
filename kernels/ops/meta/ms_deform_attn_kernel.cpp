// Meta kernels of opmatrix::ms_deform_attn and its backward: sizes, dtype and device only.
// spatial_shapes' values are not read (they may be fake); the level layout is checked by
// the real kernels.
#define TORCH_ASSERT_ONLY_METHOD_OPERATORS

#include <tuple>

#include "ops/ms_deform_attn_check.h"
#include "ops/tensor_api.h"

namespace opmatrix {
namespace {

api::Tensor ms_deform_attn_meta(const api::Tensor& value, const api::Tensor& spatial_shapes,
                               const api::Tensor& level_start_index, const api::Tensor& sampling_loc,
                               const api::Tensor& attn_weight, int64_t im2col_step) {
  const auto g = ms_deform_attn_geometry::check(value, spatial_shapes, level_start_index,
                                                sampling_loc, attn_weight, im2col_step);
  OPMATRIX_CHECK(sampling_loc.scalar_type() == value.scalar_type() &&
                  attn_weight.scalar_type() == value.scalar_type(),
              "ms_deform_attn: value, sampling_loc and attn_weight must have the same dtype");
  return api::empty({g.batch, g.queries, g.heads * g.channels}, value);
}

std::tuple<api::Tensor, api::Tensor, api::Tensor> ms_deform_attn_backward_meta(
    const api::Tensor& grad_output, const api::Tensor& value, const api::Tensor& spatial_shapes,
    const api::Tensor& level_start_index, const api::Tensor& sampling_loc,
    const api::Tensor& attn_weight, int64_t im2col_step) {
  const auto g = ms_deform_attn_geometry::check(value, spatial_shapes, level_start_index,
                                                sampling_loc, attn_weight, im2col_step);
  OPMATRIX_CHECK(grad_output.dim() == 3 && grad_output.size(0) == g.batch &&
                  grad_output.size(1) == g.queries && grad_output.size(2) == g.heads * g.channels,
              "ms_deform_attn backward: grad_output must be [N, Lq, M * D]");
  // Contiguous, like the CPU and CUDA kernels' results.
  return {api::empty_contiguous_like(value),
          api::empty_contiguous_like(sampling_loc),
          api::empty_contiguous_like(attn_weight)};
}

}  // namespace

OPMATRIX_LIBRARY_IMPL(Meta, m) {
  m.impl("ms_deform_attn", OPMATRIX_KERNEL(ms_deform_attn_meta));
  m.impl("_ms_deform_attn_backward", OPMATRIX_KERNEL(ms_deform_attn_backward_meta));
}

}  // namespace opmatrix
