// The launchers of opmatrix::deform_conv2d's CUDA kernels (deform_conv2d_device.cu), on raw
// device pointers to one image's contiguous tensors, for the host side
// (deform_conv2d_kernel.cpp). Each launches on `stream` and returns at once; the caller
// checks the launch (C10_CUDA_KERNEL_LAUNCH_CHECK). Instantiated for float, double, c10::Half
// and c10::BFloat16. mask is null where !use_mask.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace opmatrix {
namespace cuda {

struct DeformConv2dParams {
  int64_t in_channels, in_h, in_w, kernel_h, kernel_w, out_h, out_w;
  int64_t stride_h, stride_w, pad_h, pad_w, dilation_h, dilation_w;
  int64_t channels_per_offset_group;
  bool use_mask;
};

// columns [C_in * kH * kW, H_out * W_out] of one image.
template <typename scalar_t>
void deformable_im2col(const DeformConv2dParams& q, int64_t offset_groups, const scalar_t* input,
                       const scalar_t* offset, const scalar_t* mask, scalar_t* columns,
                       cudaStream_t stream);

// grad_offset (and grad_mask where use_mask) of one image, from its grad_columns.
template <typename scalar_t>
void deformable_coord_grad(const DeformConv2dParams& q, int64_t offset_groups, const scalar_t* input,
                           const scalar_t* offset, const scalar_t* mask, const scalar_t* grad_columns,
                           scalar_t* grad_offset, scalar_t* grad_mask, cudaStream_t stream);

// grad_input of one image (zeroed by the caller) += the scatter of its grad_columns.
template <typename scalar_t>
void deformable_col2im(const DeformConv2dParams& q, int64_t offset_groups, const scalar_t* offset,
                       const scalar_t* mask, const scalar_t* grad_columns, scalar_t* grad_input,
                       cudaStream_t stream);

}  // namespace cuda
}  // namespace opmatrix
