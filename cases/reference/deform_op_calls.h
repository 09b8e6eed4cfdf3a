// How the deform_conv2d / ms_deform_attn cases call the ops under test: by name through
// the dispatcher (as Python's torch.ops and C++ users do after loading the library), so
// the call reaches whichever kernel the inputs' device and requires_grad select.
// Header-only; the library must be loaded first (OPMATRIX_REQUIRE_OPS()).
#pragma once

#include <ATen/core/Tensor.h>

#include <tuple>

#include "common/dispatch.h"
#include "reference/deform_conv2d.h"
#include "reference/ms_deform_attn.h"

namespace opmatrix::cases {

using DeformConv2dSig = at::Tensor(const at::Tensor&, const at::Tensor&, const at::Tensor&,
                                   const at::Tensor&, const at::Tensor&, int64_t, int64_t, int64_t,
                                   int64_t, int64_t, int64_t, int64_t, int64_t, bool);
using DeformConv2dBackwardSig = std::tuple<at::Tensor, at::Tensor, at::Tensor, at::Tensor, at::Tensor>(
    const at::Tensor&, const at::Tensor&, const at::Tensor&, const at::Tensor&, const at::Tensor&,
    const at::Tensor&, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, bool);
using MsDeformAttnSig = at::Tensor(const at::Tensor&, const at::Tensor&, const at::Tensor&,
                                   const at::Tensor&, const at::Tensor&, int64_t);
using MsDeformAttnBackwardSig = std::tuple<at::Tensor, at::Tensor, at::Tensor>(
    const at::Tensor&, const at::Tensor&, const at::Tensor&, const at::Tensor&, const at::Tensor&,
    const at::Tensor&, int64_t);

inline at::Tensor callDeformConv2d(const reference::DeformConv2dInputs& in,
                                   const reference::DeformConv2dConfig& c) {
  static const auto op = typedOp<DeformConv2dSig>("opmatrix::deform_conv2d");
  return op.call(in.input, in.weight, in.offset, in.mask, in.bias, c.stride_h, c.stride_w,
                 c.pad_h, c.pad_w, c.dilation_h, c.dilation_w, c.groups, c.offset_groups,
                 c.use_mask);
}

inline std::tuple<at::Tensor, at::Tensor, at::Tensor, at::Tensor, at::Tensor>
callDeformConv2dBackward(const at::Tensor& grad, const reference::DeformConv2dInputs& in,
                         const reference::DeformConv2dConfig& c) {
  static const auto op = typedOp<DeformConv2dBackwardSig>("opmatrix::_deform_conv2d_backward");
  return op.call(grad, in.input, in.weight, in.offset, in.mask, in.bias, c.stride_h, c.stride_w,
                 c.pad_h, c.pad_w, c.dilation_h, c.dilation_w, c.groups, c.offset_groups,
                 c.use_mask);
}

inline at::Tensor callMsDeformAttn(const reference::MsDeformAttnInputs& in, int64_t im2col_step = 64) {
  static const auto op = typedOp<MsDeformAttnSig>("opmatrix::ms_deform_attn");
  return op.call(in.value, in.spatial_shapes, in.level_start_index, in.sampling_loc,
                 in.attn_weight, im2col_step);
}

inline std::tuple<at::Tensor, at::Tensor, at::Tensor> callMsDeformAttnBackward(
    const at::Tensor& grad, const reference::MsDeformAttnInputs& in, int64_t im2col_step = 64) {
  static const auto op = typedOp<MsDeformAttnBackwardSig>("opmatrix::_ms_deform_attn_backward");
  return op.call(grad, in.value, in.spatial_shapes, in.level_start_index, in.sampling_loc,
                 in.attn_weight, im2col_step);
}

// Same inputs on another device (index tensors too) / with another dtype (float ones only).
inline reference::DeformConv2dInputs moved(const reference::DeformConv2dInputs& in, at::Device d,
                                           at::ScalarType t) {
  return {in.input.to(d, t), in.weight.to(d, t), in.offset.to(d, t), in.mask.to(d, t), in.bias.to(d, t)};
}
inline reference::MsDeformAttnInputs moved(const reference::MsDeformAttnInputs& in, at::Device d,
                                           at::ScalarType t) {
  return {in.value.to(d, t), in.spatial_shapes.to(d), in.level_start_index.to(d),
          in.sampling_loc.to(d, t), in.attn_weight.to(d, t)};
}

}  // namespace opmatrix::cases
