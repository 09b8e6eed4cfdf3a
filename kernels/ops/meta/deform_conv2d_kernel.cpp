// Meta kernels of opmatrix::deform_conv2d and its backward: sizes, dtype and device only,
// computed by the same checks as the real kernels. This is what FakeTensor / torch.compile
// / torch.export trace with; without it users get "Unhandled FakeTensor Device Propagation
// for ...deform_conv2d.default, found two different devices".
#define TORCH_ASSERT_ONLY_METHOD_OPERATORS

#include <tuple>

#include "ops/deform_conv2d_check.h"
#include "ops/tensor_api.h"

namespace opmatrix {
namespace {

api::Tensor deform_conv2d_meta(
    const api::Tensor& input, const api::Tensor& weight, const api::Tensor& offset,
    const api::Tensor& mask, const api::Tensor& bias, int64_t stride_h, int64_t stride_w,
    int64_t pad_h, int64_t pad_w, int64_t dilation_h, int64_t dilation_w, int64_t groups,
    int64_t offset_groups, bool use_mask) {
  const auto g = deform_conv2d_geometry::check(input, weight, offset, mask, bias, stride_h,
                                               stride_w, pad_h, pad_w, dilation_h, dilation_w,
                                               groups, offset_groups, use_mask);
  OPMATRIX_CHECK(weight.scalar_type() == input.scalar_type() && offset.scalar_type() == input.scalar_type(),
              "deform_conv2d: input, weight, offset, mask and bias must have the same dtype");
  return api::empty({g.batch, g.out_channels, g.out_h, g.out_w}, input);
}

std::tuple<api::Tensor, api::Tensor, api::Tensor, api::Tensor, api::Tensor> deform_conv2d_backward_meta(
    const api::Tensor& grad, const api::Tensor& input, const api::Tensor& weight,
    const api::Tensor& offset, const api::Tensor& mask, const api::Tensor& bias, int64_t stride_h,
    int64_t stride_w, int64_t pad_h, int64_t pad_w, int64_t dilation_h, int64_t dilation_w,
    int64_t groups, int64_t offset_groups, bool use_mask) {
  const auto g = deform_conv2d_geometry::check(input, weight, offset, mask, bias, stride_h,
                                               stride_w, pad_h, pad_w, dilation_h, dilation_w,
                                               groups, offset_groups, use_mask);
  OPMATRIX_CHECK(grad.dim() == 4 && grad.size(0) == g.batch && grad.size(1) == g.out_channels &&
                  grad.size(2) == g.out_h && grad.size(3) == g.out_w,
              "deform_conv2d backward: grad must have the output's shape");
  // Contiguous, like the CPU and CUDA kernels' results.
  return api::empty_contiguous_like_each(input, weight, offset, mask, bias);
}

}  // namespace

OPMATRIX_LIBRARY_IMPL(Meta, m) {
  m.impl("deform_conv2d", OPMATRIX_KERNEL(deform_conv2d_meta));
  m.impl("_deform_conv2d_backward", OPMATRIX_KERNEL(deform_conv2d_backward_meta));
}

}  // namespace opmatrix
