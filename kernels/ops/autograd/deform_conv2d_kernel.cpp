// Autograd kernel of opmatrix::deform_conv2d: a torch::autograd::Function whose forward
// redispatches below Autograd and whose backward calls opmatrix::_deform_conv2d_backward
// through the dispatcher, so the same node serves CPU and CUDA tensors.
#include <ATen/core/dispatch/Dispatcher.h>
#include <torch/library.h>

#include "ops/autograd/function.h"
#include "ops/deform_conv2d.h"

namespace opmatrix {
namespace {

class DeformConv2dFunction : public torch::autograd::Function<DeformConv2dFunction> {
 public:
  static variable_list forward(AutogradContext* ctx, const Variable& input, const Variable& weight,
                               const Variable& offset, const Variable& mask, const Variable& bias,
                               int64_t stride_h, int64_t stride_w, int64_t pad_h, int64_t pad_w,
                               int64_t dilation_h, int64_t dilation_w, int64_t groups,
                               int64_t offset_groups, bool use_mask) {
    at::AutoDispatchBelowADInplaceOrView guard;
    at::Tensor output = deform_conv2d(input, weight, offset, mask, bias, stride_h, stride_w, pad_h,
                                      pad_w, dilation_h, dilation_w, groups, offset_groups, use_mask);
    ctx->save_for_backward({input, weight, offset, mask, bias});
    ctx->saved_data["stride_h"] = stride_h;
    ctx->saved_data["stride_w"] = stride_w;
    ctx->saved_data["pad_h"] = pad_h;
    ctx->saved_data["pad_w"] = pad_w;
    ctx->saved_data["dilation_h"] = dilation_h;
    ctx->saved_data["dilation_w"] = dilation_w;
    ctx->saved_data["groups"] = groups;
    ctx->saved_data["offset_groups"] = offset_groups;
    ctx->saved_data["use_mask"] = use_mask;
    return {output};
  }

  static variable_list backward(AutogradContext* ctx, const variable_list& grad_output) {
    const auto saved = ctx->get_saved_variables();
    auto grads = detail::_deform_conv2d_backward(
        grad_output[0], saved[0], saved[1], saved[2], saved[3], saved[4],
        ctx->saved_data["stride_h"].toInt(), ctx->saved_data["stride_w"].toInt(),
        ctx->saved_data["pad_h"].toInt(), ctx->saved_data["pad_w"].toInt(),
        ctx->saved_data["dilation_h"].toInt(), ctx->saved_data["dilation_w"].toInt(),
        ctx->saved_data["groups"].toInt(), ctx->saved_data["offset_groups"].toInt(),
        ctx->saved_data["use_mask"].toBool());
    const bool use_mask = ctx->saved_data["use_mask"].toBool();
    return {std::get<0>(grads), std::get<1>(grads), std::get<2>(grads),
            use_mask ? std::get<3>(grads) : Variable(), std::get<4>(grads),
            Variable(), Variable(), Variable(), Variable(), Variable(), Variable(), Variable(),
            Variable(), Variable()};
  }
};

// The backward op is differentiable only once: its own backward refuses, as torchvision's.
class DeformConv2dBackwardFunction : public OnceDifferentiable<DeformConv2dBackwardFunction> {
 public:
  static constexpr auto run = &detail::_deform_conv2d_backward;
  static constexpr const char* kDoubleBackwardError =
      "opmatrix::deform_conv2d: double backward is not supported";
};

at::Tensor deform_conv2d_autograd(
    const at::Tensor& input, const at::Tensor& weight, const at::Tensor& offset,
    const at::Tensor& mask, const at::Tensor& bias, int64_t stride_h, int64_t stride_w,
    int64_t pad_h, int64_t pad_w, int64_t dilation_h, int64_t dilation_w, int64_t groups,
    int64_t offset_groups, bool use_mask) {
  return DeformConv2dFunction::apply(input, weight, offset, mask, bias, stride_h, stride_w, pad_h,
                                     pad_w, dilation_h, dilation_w, groups, offset_groups,
                                     use_mask)[0];
}

std::tuple<at::Tensor, at::Tensor, at::Tensor, at::Tensor, at::Tensor> deform_conv2d_backward_autograd(
    const at::Tensor& grad, const at::Tensor& input, const at::Tensor& weight,
    const at::Tensor& offset, const at::Tensor& mask, const at::Tensor& bias, int64_t stride_h,
    int64_t stride_w, int64_t pad_h, int64_t pad_w, int64_t dilation_h, int64_t dilation_w,
    int64_t groups, int64_t offset_groups, bool use_mask) {
  auto r = DeformConv2dBackwardFunction::apply(grad, input, weight, offset, mask, bias, stride_h,
                                               stride_w, pad_h, pad_w, dilation_h, dilation_w,
                                               groups, offset_groups, use_mask);
  return {r[0], r[1], r[2], r[3], r[4]};
}

}  // namespace

TORCH_LIBRARY_IMPL(opmatrix, Autograd, m) {
  m.impl("deform_conv2d", TORCH_FN(deform_conv2d_autograd));
  m.impl("_deform_conv2d_backward", TORCH_FN(deform_conv2d_backward_autograd));
}

}  // namespace opmatrix
