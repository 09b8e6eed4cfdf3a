// Meta kernels of opmatrix::ms_deform_attn and its backward: sizes, dtype and device only.
// spatial_shapes' values are not read (they may be fake); the level layout is checked by
// the real kernels.
#define TORCH_ASSERT_ONLY_METHOD_OPERATORS
#include <ATen/core/Tensor.h>
#include <ATen/ops/empty.h>
#include <torch/library.h>

#include <tuple>

#include "ops/ms_deform_attn_check.h"

namespace opmatrix {
namespace {

at::Tensor ms_deform_attn_meta(const at::Tensor& value, const at::Tensor& spatial_shapes,
                               const at::Tensor& level_start_index, const at::Tensor& sampling_loc,
                               const at::Tensor& attn_weight, int64_t im2col_step) {
  const auto g = ms_deform_attn_geometry::check(value, spatial_shapes, level_start_index,
                                                sampling_loc, attn_weight, im2col_step);
  TORCH_CHECK(sampling_loc.scalar_type() == value.scalar_type() &&
                  attn_weight.scalar_type() == value.scalar_type(),
              "ms_deform_attn: value, sampling_loc and attn_weight must have the same dtype");
  return at::empty({g.batch, g.queries, g.heads * g.channels}, value.options());
}

std::tuple<at::Tensor, at::Tensor, at::Tensor> ms_deform_attn_backward_meta(
    const at::Tensor& grad_output, const at::Tensor& value, const at::Tensor& spatial_shapes,
    const at::Tensor& level_start_index, const at::Tensor& sampling_loc,
    const at::Tensor& attn_weight, int64_t im2col_step) {
  const auto g = ms_deform_attn_geometry::check(value, spatial_shapes, level_start_index,
                                                sampling_loc, attn_weight, im2col_step);
  TORCH_CHECK(grad_output.dim() == 3 && grad_output.size(0) == g.batch &&
                  grad_output.size(1) == g.queries && grad_output.size(2) == g.heads * g.channels,
              "ms_deform_attn backward: grad_output must be [N, Lq, M * D]");
  // Contiguous, like the CPU and CUDA kernels' results.
  return {at::empty(value.sizes(), value.options()),
          at::empty(sampling_loc.sizes(), sampling_loc.options()),
          at::empty(attn_weight.sizes(), attn_weight.options())};
}

}  // namespace

TORCH_LIBRARY_IMPL(opmatrix, Meta, m) {
  m.impl("ms_deform_attn", TORCH_FN(ms_deform_attn_meta));
  m.impl("_ms_deform_attn_backward", TORCH_FN(ms_deform_attn_backward_meta));
}

}  // namespace opmatrix
