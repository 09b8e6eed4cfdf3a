// Argument checks and output geometry of deform_conv2d, shared by every backend so the
// CPU, CUDA and Meta kernels accept the same inputs and agree on the output size.
// Messages follow torchvision's, which users search for.
#pragma once

#include "ops/tensor_api.h"

#include <cstdint>

namespace opmatrix {
namespace deform_conv2d_geometry {

struct Geometry {
  int64_t batch, in_channels, in_h, in_w;
  int64_t out_channels, kernel_h, kernel_w;
  int64_t out_h, out_w;
};

inline Geometry check(
    const api::Tensor& input, const api::Tensor& weight, const api::Tensor& offset,
    const api::Tensor& mask, const api::Tensor& bias, int64_t stride_h, int64_t stride_w,
    int64_t pad_h, int64_t pad_w, int64_t dilation_h, int64_t dilation_w, int64_t groups,
    int64_t offset_groups, bool use_mask) {
  OPMATRIX_CHECK(input.dim() == 4, "deform_conv2d: input must be 4-D, got ", input.dim(), "-D");
  OPMATRIX_CHECK(weight.dim() == 4, "deform_conv2d: weight must be 4-D, got ", weight.dim(), "-D");
  OPMATRIX_CHECK(offset.dim() == 4, "deform_conv2d: offset must be 4-D, got ", offset.dim(), "-D");
  OPMATRIX_CHECK(!use_mask || mask.dim() == 4, "deform_conv2d: mask must be 4-D, got ", mask.dim(), "-D");
  OPMATRIX_CHECK(bias.dim() == 1, "deform_conv2d: bias must be 1-D");
  OPMATRIX_CHECK(stride_h > 0 && stride_w > 0, "deform_conv2d: stride must be > 0, got ", stride_h, ", ", stride_w);
  OPMATRIX_CHECK(pad_h >= 0 && pad_w >= 0, "deform_conv2d: padding must be >= 0, got ", pad_h, ", ", pad_w);
  OPMATRIX_CHECK(dilation_h > 0 && dilation_w > 0, "deform_conv2d: dilation must be > 0, got ", dilation_h, ", ", dilation_w);
  OPMATRIX_CHECK(groups > 0 && offset_groups > 0, "deform_conv2d: groups and offset_groups must be > 0");

  // out_h and out_w follow once the sizes they derive from are checked.
  Geometry g{input.size(0),  input.size(1),  input.size(2), input.size(3),
             weight.size(0), weight.size(2), weight.size(3), 0, 0};
  const int64_t taps = g.kernel_h * g.kernel_w;

  OPMATRIX_CHECK(g.kernel_h > 0 && g.kernel_w > 0, "deform_conv2d: kernel size must be > 0");
  OPMATRIX_CHECK(weight.size(1) * groups == g.in_channels,
              "deform_conv2d: input channels (", g.in_channels, ") must equal weight.size(1) * groups (",
              weight.size(1), " * ", groups, ")");
  OPMATRIX_CHECK(g.out_channels % groups == 0, "deform_conv2d: out channels (", g.out_channels,
              ") must be divisible by groups (", groups, ")");
  OPMATRIX_CHECK(g.in_channels % offset_groups == 0, "deform_conv2d: input channels (", g.in_channels,
              ") must be divisible by offset_groups (", offset_groups, ")");
  OPMATRIX_CHECK(offset.size(0) == g.batch, "deform_conv2d: invalid batch size of offset");
  OPMATRIX_CHECK(offset.size(1) == offset_groups * 2 * taps,
              "deform_conv2d: offset.shape[1] is not valid: got ", offset.size(1), ", expected ",
              offset_groups * 2 * taps);
  OPMATRIX_CHECK(bias.size(0) == g.out_channels, "deform_conv2d: bias must have out_channels elements");

  g.out_h = (g.in_h + 2 * pad_h - (dilation_h * (g.kernel_h - 1) + 1)) / stride_h + 1;
  g.out_w = (g.in_w + 2 * pad_w - (dilation_w * (g.kernel_w - 1) + 1)) / stride_w + 1;
  OPMATRIX_CHECK(g.out_h > 0 && g.out_w > 0, "deform_conv2d: calculated output size too small - out_h: ",
              g.out_h, " out_w: ", g.out_w);
  OPMATRIX_CHECK(offset.size(2) == g.out_h && offset.size(3) == g.out_w,
              "deform_conv2d: offset output dims (", offset.size(2), ", ", offset.size(3),
              ") must equal the output size (", g.out_h, ", ", g.out_w, ")");
  if (use_mask) {
    OPMATRIX_CHECK(mask.size(0) == g.batch, "deform_conv2d: invalid batch size of mask");
    OPMATRIX_CHECK(mask.size(1) == offset_groups * taps, "deform_conv2d: mask.shape[1] is not valid: got ",
                mask.size(1), ", expected ", offset_groups * taps);
    OPMATRIX_CHECK(mask.size(2) == g.out_h && mask.size(3) == g.out_w,
                "deform_conv2d: mask output dims must equal the output size");
  }
  return g;
}

}  // namespace deform_conv2d_geometry
}  // namespace opmatrix
