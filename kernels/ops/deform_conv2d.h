// C++ entry points of opmatrix::deform_conv2d (Deformable ConvNets v1/v2), same argument
// order and meaning as torchvision::deform_conv2d. They go through the dispatcher, so
// callers get whichever backend kernel (CPU, CUDA, Meta, Autograd) applies.
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <tuple>

namespace opmatrix {

at::Tensor deform_conv2d(
    const at::Tensor& input,   // [N, C_in, H, W]
    const at::Tensor& weight,  // [C_out, C_in / groups, kH, kW]
    const at::Tensor& offset,  // [N, 2 * offset_groups * kH * kW, H_out, W_out], (dy, dx) pairs
    const at::Tensor& mask,    // [N, offset_groups * kH * kW, H_out, W_out]; ignored unless use_mask
    const at::Tensor& bias,    // [C_out]
    int64_t stride_h, int64_t stride_w,
    int64_t pad_h, int64_t pad_w,
    int64_t dilation_h, int64_t dilation_w,
    int64_t groups, int64_t offset_groups,
    bool use_mask);

namespace detail {

// (grad_input, grad_weight, grad_offset, grad_mask, grad_bias)
std::tuple<at::Tensor, at::Tensor, at::Tensor, at::Tensor, at::Tensor> _deform_conv2d_backward(
    const at::Tensor& grad, const at::Tensor& input, const at::Tensor& weight,
    const at::Tensor& offset, const at::Tensor& mask, const at::Tensor& bias,
    int64_t stride_h, int64_t stride_w, int64_t pad_h, int64_t pad_w,
    int64_t dilation_h, int64_t dilation_w, int64_t groups, int64_t offset_groups,
    bool use_mask);

}  // namespace detail
}  // namespace opmatrix
