// How the deform_conv2d / ms_deform_attn cases call the ops under test: by name through
// the dispatcher (as Python's torch.ops and C++ users do after loading the library), so
// the call reaches whichever kernel the inputs' device and requires_grad select; and the
// check both ops' Meta kernels share. Header-only; the library must be loaded first
// (OPMATRIX_REQUIRE_OPS()).
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

#include "common/dispatch.h"
#include "common/testbed.h"
#include "reference/deform_conv2d.h"
#include "reference/ms_deform_attn.h"

namespace opmatrix::cases {

// The vocabulary of the deform_conv2d / ms_deform_attn cases: configurations and inputs from
// the references, each configuration named for the tests it parameterises.
using reference::DeformConv2dConfig;
using reference::DeformConv2dInputs;
using reference::MsDeformAttnConfig;
using reference::MsDeformAttnInputs;
using DeformConv2dCase = Named<DeformConv2dConfig>;
using MsDeformAttnCase = Named<MsDeformAttnConfig>;

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

// The same inputs as FakeTensor passes them to a Meta kernel: every tensor on the meta
// device, index tensors too (the kernel must not read their values).
inline reference::DeformConv2dInputs toMeta(const reference::DeformConv2dInputs& in) {
  return {toMeta(in.input), toMeta(in.weight), toMeta(in.offset), toMeta(in.mask), toMeta(in.bias)};
}
inline reference::MsDeformAttnInputs toMeta(const reference::MsDeformAttnInputs& in) {
  return {toMeta(in.value), toMeta(in.spatial_shapes), toMeta(in.level_start_index),
          toMeta(in.sampling_loc), toMeta(in.attn_weight)};
}

// The backward ops' outputs, in order, as failure messages name them.
inline const std::vector<std::string> kDeformConv2dGradNames{"grad_input", "grad_weight", "grad_offset",
                                                             "grad_mask", "grad_bias"};
inline const std::vector<std::string> kMsDeformAttnGradNames{"grad_value", "grad_sampling_loc",
                                                             "grad_attn_weight"};

// Each op as expectMetaMatchesCpu<Ops> takes it: its configuration and inputs, fixed-seed
// inputs, forward, backward's outputs and their names.
struct DeformConv2dOps {
  using Config = DeformConv2dConfig;
  using Inputs = DeformConv2dInputs;
  static Inputs inputs(const Config& c, at::ScalarType dtype, uint64_t seed) {
    return reference::makeDeformConv2dInputs(c, dtype, seed);
  }
  static at::Tensor forward(const Inputs& in, const Config& c) { return callDeformConv2d(in, c); }
  static std::vector<at::Tensor> backward(const at::Tensor& grad, const Inputs& in, const Config& c) {
    return tensorList(callDeformConv2dBackward(grad, in, c));
  }
  static const std::vector<std::string>& gradNames() { return kDeformConv2dGradNames; }
};

struct MsDeformAttnOps {
  using Config = MsDeformAttnConfig;
  using Inputs = MsDeformAttnInputs;
  static Inputs inputs(const Config& c, at::ScalarType dtype, uint64_t seed) {
    return reference::makeMsDeformAttnInputs(c, dtype, seed);
  }
  static at::Tensor forward(const Inputs& in, const Config&) { return callMsDeformAttn(in); }
  static std::vector<at::Tensor> backward(const at::Tensor& grad, const Inputs& in, const Config&) {
    return tensorList(callMsDeformAttnBackward(grad, in));
  }
  static const std::vector<std::string>& gradNames() { return kMsDeformAttnGradNames; }
};

// The Meta kernels of an op and its backward against the CPU kernels, on Ops::inputs(config,
// dtype, seed) and those inputs on the meta device: expectSameMeta for the output and for
// each gradient.
template <class Ops>
void expectMetaMatchesCpu(const typename Ops::Config& config, at::ScalarType dtype, uint64_t seed) {
  const typename Ops::Inputs cpu = Ops::inputs(config, dtype, seed);
  const typename Ops::Inputs meta = toMeta(cpu);
  const at::Tensor out_cpu = Ops::forward(cpu, config);
  const at::Tensor out_meta = Ops::forward(meta, config);
  expectSameMeta(out_meta, out_cpu, "output");

  const std::vector<at::Tensor> g_cpu = Ops::backward(at::ones_like(out_cpu), cpu, config);
  const std::vector<at::Tensor> g_meta = Ops::backward(toMeta(out_cpu), meta, config);
  expectSameMeta(g_meta, g_cpu, Ops::gradNames());
}

}  // namespace opmatrix::cases
