// Independent reference for deform_conv2d, written from the math with plain ATen ops
// (explicit bilinear gather per kernel tap, then a per-group einsum), plus the inputs the
// deform_conv2d cases share. Shares no code with kernels/.
#pragma once

#include <ATen/core/Tensor.h>
#include <c10/core/ScalarType.h>

#include <cstdint>
#include <string>

namespace opmatrix::reference {

struct DeformConv2dConfig {
  int64_t batch = 2, in_channels = 4, out_channels = 6, in_h = 7, in_w = 9;
  int64_t kernel_h = 3, kernel_w = 3;
  int64_t stride_h = 1, stride_w = 1, pad_h = 1, pad_w = 1, dilation_h = 1, dilation_w = 1;
  int64_t groups = 1, offset_groups = 1;
  bool use_mask = true;
  double offset_scale = 2.0;  // random offsets ~ U(-scale, scale) pixels

  int64_t outH() const { return (in_h + 2 * pad_h - (dilation_h * (kernel_h - 1) + 1)) / stride_h + 1; }
  int64_t outW() const { return (in_w + 2 * pad_w - (dilation_w * (kernel_w - 1) + 1)) / stride_w + 1; }
  std::string describe() const;
};

// The op's five tensor arguments; mask is [N, 0] when !use_mask (as torchvision passes it).
struct DeformConv2dInputs {
  at::Tensor input, weight, offset, mask, bias;
};

// Fixed-seed random inputs of `config`'s shapes on the CPU.
DeformConv2dInputs makeDeformConv2dInputs(const DeformConv2dConfig& config, at::ScalarType dtype,
                                          uint64_t seed);

// Reference forward.
at::Tensor deformConv2d(const DeformConv2dInputs& in, const DeformConv2dConfig& config);

}  // namespace opmatrix::reference
