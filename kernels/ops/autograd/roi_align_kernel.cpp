// Autograd kernels of opmatrix::roi_align (a torch::autograd::Function whose backward calls
// opmatrix::_roi_align_backward through the dispatcher, so CPU and CUDA share one node) and
// of _roi_align_backward itself (differentiating the backward again is not supported).
#include <torch/library.h>

#include "ops/autograd/function.h"
#include "ops/roi_align.h"

namespace opmatrix {
namespace {

class RoiAlignFunction : public torch::autograd::Function<RoiAlignFunction> {
 public:
  static variable_list forward(AutogradContext* ctx, const Variable& input, const Variable& rois,
                               double spatial_scale, int64_t pooled_height, int64_t pooled_width,
                               int64_t sampling_ratio, bool aligned) {
    ctx->saved_data["spatial_scale"] = spatial_scale;
    ctx->saved_data["pooled_height"] = pooled_height;
    ctx->saved_data["pooled_width"] = pooled_width;
    ctx->saved_data["sampling_ratio"] = sampling_ratio;
    ctx->saved_data["aligned"] = aligned;
    ctx->saved_data["input_shape"] = input.sizes();
    ctx->save_for_backward({rois});
    at::AutoDispatchBelowADInplaceOrView below_autograd;
    return {roi_align(input, rois, spatial_scale, pooled_height, pooled_width, sampling_ratio,
                      aligned)};
  }

  static variable_list backward(AutogradContext* ctx, const variable_list& grad_output) {
    const auto saved = ctx->get_saved_variables();
    const auto& rois = saved[0];
    const auto input_shape = ctx->saved_data["input_shape"].toIntList();
    at::Tensor grad_in = detail::_roi_align_backward(
        grad_output[0], rois, ctx->saved_data["spatial_scale"].toDouble(),
        ctx->saved_data["pooled_height"].toInt(), ctx->saved_data["pooled_width"].toInt(),
        input_shape[0], input_shape[1], input_shape[2], input_shape[3],
        ctx->saved_data["sampling_ratio"].toInt(), ctx->saved_data["aligned"].toBool());
    // Gradients for: input, rois (not differentiable), and the five non-tensor arguments.
    return {grad_in, Variable(), Variable(), Variable(), Variable(), Variable(), Variable()};
  }
};

// Only reached when something differentiates _roi_align_backward (double backward).
class RoiAlignBackwardFunction : public OnceDifferentiable<RoiAlignBackwardFunction> {
 public:
  static constexpr auto run = &detail::_roi_align_backward;
  static constexpr const char* kDoubleBackwardError =
      "double backwards on opmatrix::roi_align is not supported";
};

at::Tensor roi_align_autograd(const at::Tensor& input, const at::Tensor& rois,
                              double spatial_scale, int64_t pooled_height, int64_t pooled_width,
                              int64_t sampling_ratio, bool aligned) {
  return RoiAlignFunction::apply(input, rois, spatial_scale, pooled_height, pooled_width,
                                 sampling_ratio, aligned)[0];
}

at::Tensor roi_align_backward_autograd(const at::Tensor& grad, const at::Tensor& rois,
                                       double spatial_scale, int64_t pooled_height,
                                       int64_t pooled_width, int64_t batch_size, int64_t channels,
                                       int64_t height, int64_t width, int64_t sampling_ratio,
                                       bool aligned) {
  return RoiAlignBackwardFunction::apply(grad, rois, spatial_scale, pooled_height, pooled_width,
                                         batch_size, channels, height, width, sampling_ratio,
                                         aligned)[0];
}

}  // namespace

TORCH_LIBRARY_IMPL(opmatrix, Autograd, m) {
  m.impl(TORCH_SELECTIVE_NAME("opmatrix::roi_align"), TORCH_FN(roi_align_autograd));
  m.impl(TORCH_SELECTIVE_NAME("opmatrix::_roi_align_backward"),
         TORCH_FN(roi_align_backward_autograd));
}

}  // namespace opmatrix
