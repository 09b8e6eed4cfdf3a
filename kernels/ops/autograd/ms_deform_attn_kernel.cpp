// Autograd kernel of opmatrix::ms_deform_attn: forward redispatches below Autograd,
// backward calls opmatrix::_ms_deform_attn_backward through the dispatcher (CPU or CUDA).
// spatial_shapes and level_start_index are integer index tensors: no gradient.
#include <ATen/core/dispatch/Dispatcher.h>
#include <torch/library.h>

#include "ops/autograd/function.h"
#include "ops/ms_deform_attn.h"

namespace opmatrix {
namespace {

class MsDeformAttnFunction : public torch::autograd::Function<MsDeformAttnFunction> {
 public:
  static variable_list forward(AutogradContext* ctx, const Variable& value,
                               const Variable& spatial_shapes, const Variable& level_start_index,
                               const Variable& sampling_loc, const Variable& attn_weight,
                               int64_t im2col_step) {
    at::AutoDispatchBelowADInplaceOrView guard;
    at::Tensor output = ms_deform_attn(value, spatial_shapes, level_start_index, sampling_loc,
                                       attn_weight, im2col_step);
    ctx->save_for_backward({value, spatial_shapes, level_start_index, sampling_loc, attn_weight});
    ctx->saved_data["im2col_step"] = im2col_step;
    return {output};
  }

  static variable_list backward(AutogradContext* ctx, const variable_list& grad_output) {
    const auto saved = ctx->get_saved_variables();
    auto grads = detail::_ms_deform_attn_backward(grad_output[0], saved[0], saved[1], saved[2],
                                                  saved[3], saved[4],
                                                  ctx->saved_data["im2col_step"].toInt());
    return {std::get<0>(grads), Variable(), Variable(), std::get<1>(grads), std::get<2>(grads),
            Variable()};
  }
};

class MsDeformAttnBackwardFunction : public OnceDifferentiable<MsDeformAttnBackwardFunction> {
 public:
  static constexpr auto run = &detail::_ms_deform_attn_backward;
  static constexpr const char* kDoubleBackwardError =
      "opmatrix::ms_deform_attn: double backward is not supported";
};

at::Tensor ms_deform_attn_autograd(const at::Tensor& value, const at::Tensor& spatial_shapes,
                                   const at::Tensor& level_start_index,
                                   const at::Tensor& sampling_loc, const at::Tensor& attn_weight,
                                   int64_t im2col_step) {
  return MsDeformAttnFunction::apply(value, spatial_shapes, level_start_index, sampling_loc,
                                     attn_weight, im2col_step)[0];
}

std::tuple<at::Tensor, at::Tensor, at::Tensor> ms_deform_attn_backward_autograd(
    const at::Tensor& grad_output, const at::Tensor& value, const at::Tensor& spatial_shapes,
    const at::Tensor& level_start_index, const at::Tensor& sampling_loc,
    const at::Tensor& attn_weight, int64_t im2col_step) {
  auto r = MsDeformAttnBackwardFunction::apply(grad_output, value, spatial_shapes,
                                               level_start_index, sampling_loc, attn_weight,
                                               im2col_step);
  return {r[0], r[1], r[2]};
}

}  // namespace

TORCH_LIBRARY_IMPL(opmatrix, Autograd, m) {
  m.impl("ms_deform_attn", TORCH_FN(ms_deform_attn_autograd));
  m.impl("_ms_deform_attn_backward", TORCH_FN(ms_deform_attn_backward_autograd));
}

}  // namespace opmatrix
