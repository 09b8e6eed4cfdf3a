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
  return ms_deform_attn_geometry::empty_output(g, value);
}

std::tuple<api::Tensor, api::Tensor, api::Tensor> ms_deform_attn_backward_meta(
    const api::Tensor& grad_output, const api::Tensor& value, const api::Tensor& spatial_shapes,
    const api::Tensor& level_start_index, const api::Tensor& sampling_loc,
    const api::Tensor& attn_weight, int64_t im2col_step) {
  const auto g = ms_deform_attn_geometry::check(value, spatial_shapes, level_start_index,
                                                sampling_loc, attn_weight, im2col_step);
  ms_deform_attn_geometry::check_grad_output(g, grad_output);
  // Contiguous, like the CPU and CUDA kernels' results.
  return api::empty_contiguous_like_each(value, sampling_loc, attn_weight);
}

}  // namespace

OPMATRIX_LIBRARY_IMPL(Meta, m) {
  m.impl("ms_deform_attn", OPMATRIX_KERNEL(ms_deform_attn_meta));
  m.impl("_ms_deform_attn_backward", OPMATRIX_KERNEL(ms_deform_attn_backward_meta));
}

}  // namespace opmatrix
