// Schema of opmatrix::ms_deform_attn and its backward (plain `int`: parses on torch 1.13).
#include "ops/tensor_api.h"

#ifndef OPMATRIX_STABLE_ABI  // the C++ callers (autograd and tests) are ATen code
#include "ops/ms_deform_attn.h"
#include "ops/typed_op.h"
#endif

namespace opmatrix {

#ifndef OPMATRIX_STABLE_ABI
at::Tensor ms_deform_attn(
    const at::Tensor& value, const at::Tensor& spatial_shapes,
    const at::Tensor& level_start_index, const at::Tensor& sampling_loc,
    const at::Tensor& attn_weight, int64_t im2col_step) {
  static auto op = typed_op<decltype(ms_deform_attn)>("opmatrix::ms_deform_attn");
  return op.call(value, spatial_shapes, level_start_index, sampling_loc, attn_weight,
                 im2col_step);
}

namespace detail {

std::tuple<at::Tensor, at::Tensor, at::Tensor> _ms_deform_attn_backward(
    const at::Tensor& grad_output, const at::Tensor& value, const at::Tensor& spatial_shapes,
    const at::Tensor& level_start_index, const at::Tensor& sampling_loc,
    const at::Tensor& attn_weight, int64_t im2col_step) {
  static auto op =
      typed_op<decltype(_ms_deform_attn_backward)>("opmatrix::_ms_deform_attn_backward");
  return op.call(grad_output, value, spatial_shapes, level_start_index, sampling_loc,
                 attn_weight, im2col_step);
}

}  // namespace detail
#endif

OPMATRIX_LIBRARY_FRAGMENT(m) {
  m.def(
      "ms_deform_attn(Tensor value, Tensor spatial_shapes, Tensor level_start_index, "
      "Tensor sampling_loc, Tensor attn_weight, int im2col_step) -> Tensor");
  m.def(
      "_ms_deform_attn_backward(Tensor grad_output, Tensor value, Tensor spatial_shapes, "
      "Tensor level_start_index, Tensor sampling_loc, Tensor attn_weight, int im2col_step) "
      "-> (Tensor, Tensor, Tensor)");
}

}  // namespace opmatrix
