// Schema of opmatrix::deform_conv2d and its backward, written exactly as torchvision's
// (plain `int`, so it parses on torch 1.13 as well as on SymInt-era releases).
#include "ops/tensor_api.h"

#ifndef OPMATRIX_STABLE_ABI  // the C++ callers (autograd and tests) are ATen code
#include "ops/deform_conv2d.h"
#include "ops/typed_op.h"
#endif

namespace opmatrix {

#ifndef OPMATRIX_STABLE_ABI
at::Tensor deform_conv2d(
    const at::Tensor& input, const at::Tensor& weight, const at::Tensor& offset,
    const at::Tensor& mask, const at::Tensor& bias, int64_t stride_h, int64_t stride_w,
    int64_t pad_h, int64_t pad_w, int64_t dilation_h, int64_t dilation_w, int64_t groups,
    int64_t offset_groups, bool use_mask) {
  static auto op = typed_op<decltype(deform_conv2d)>("opmatrix::deform_conv2d");
  return op.call(input, weight, offset, mask, bias, stride_h, stride_w, pad_h, pad_w,
                 dilation_h, dilation_w, groups, offset_groups, use_mask);
}

namespace detail {

std::tuple<at::Tensor, at::Tensor, at::Tensor, at::Tensor, at::Tensor> _deform_conv2d_backward(
    const at::Tensor& grad, const at::Tensor& input, const at::Tensor& weight,
    const at::Tensor& offset, const at::Tensor& mask, const at::Tensor& bias,
    int64_t stride_h, int64_t stride_w, int64_t pad_h, int64_t pad_w,
    int64_t dilation_h, int64_t dilation_w, int64_t groups, int64_t offset_groups,
    bool use_mask) {
  static auto op = typed_op<decltype(_deform_conv2d_backward)>("opmatrix::_deform_conv2d_backward");
  return op.call(grad, input, weight, offset, mask, bias, stride_h, stride_w, pad_h, pad_w,
                 dilation_h, dilation_w, groups, offset_groups, use_mask);
}

}  // namespace detail
#endif

OPMATRIX_LIBRARY_FRAGMENT(m) {
  m.def(
      "deform_conv2d(Tensor input, Tensor weight, Tensor offset, Tensor mask, Tensor bias, "
      "int stride_h, int stride_w, int pad_h, int pad_w, int dilation_h, int dilation_w, "
      "int groups, int offset_groups, bool use_mask) -> Tensor");
  m.def(
      "_deform_conv2d_backward(Tensor grad, Tensor input, Tensor weight, Tensor offset, "
      "Tensor mask, Tensor bias, int stride_h, int stride_w, int pad_h, int pad_w, "
      "int dilation_h, int dilation_w, int groups, int offset_groups, bool use_mask) "
      "-> (Tensor, Tensor, Tensor, Tensor, Tensor)");
}

}  // namespace opmatrix
