// The CUDA backend of opmatrix::deform_conv2d and its backward: the CPU algorithm
// (ops/cpu/deform_conv2d_kernel.cpp) on the GPU — deformable im2col per image
// (deform_conv2d_device.cu), then cuBLAS GEMMs per group (addmm / mm). float, double, half
// and bfloat16, on the current stream.
#define TORCH_ASSERT_ONLY_METHOD_OPERATORS
#include <ATen/core/Tensor.h>
#include <ATen/Dispatch.h>
#include <ATen/cuda/CUDAContext.h>
#include <ATen/ops/addmm.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/mm.h>
#include <ATen/ops/sum.h>
#include <ATen/ops/zeros_like.h>
#include <c10/cuda/CUDAException.h>
#include <c10/cuda/CUDAGuard.h>
#include <torch/library.h>

#include <cstdint>
#include <tuple>

#include "ops/cuda/deform_conv2d_device.h"
#include "ops/deform_conv2d_check.h"

namespace opmatrix {
namespace {

using deform_conv2d_geometry::Geometry;

struct CudaInputs {
  at::Tensor input, weight, offset, mask, bias;
};

CudaInputs check_cuda(const at::Tensor& input, const at::Tensor& weight, const at::Tensor& offset,
                  const at::Tensor& mask, const at::Tensor& bias, bool use_mask) {
  const auto dtype = input.scalar_type();
  for (const at::Tensor* t : {&input, &weight, &offset, &bias}) {
    TORCH_CHECK(t->is_cuda() && t->device() == input.device(),
                "deform_conv2d (CUDA kernel): every tensor must be on the same CUDA device");
    TORCH_CHECK(t->scalar_type() == dtype, "deform_conv2d: input, weight, offset, mask and bias must have the same dtype");
  }
  if (use_mask) {
    TORCH_CHECK(mask.is_cuda() && mask.device() == input.device(),
                "deform_conv2d (CUDA kernel): every tensor must be on the same CUDA device");
    TORCH_CHECK(mask.scalar_type() == dtype, "deform_conv2d: input, weight, offset, mask and bias must have the same dtype");
  }
  return {input.contiguous(), weight.contiguous(), offset.contiguous(),
          use_mask ? mask.contiguous() : mask, bias.contiguous()};
}

cuda::DeformConv2dParams make_cuda_params(const Geometry& g, int64_t stride_h, int64_t stride_w, int64_t pad_h,
                   int64_t pad_w, int64_t dilation_h, int64_t dilation_w, int64_t offset_groups,
                   bool use_mask) {
  return cuda::DeformConv2dParams{g.in_channels, g.in_h, g.in_w, g.kernel_h, g.kernel_w, g.out_h, g.out_w,
                stride_h, stride_w, pad_h, pad_w, dilation_h, dilation_w,
                g.in_channels / offset_groups, use_mask};
}

at::Tensor deform_conv2d_forward_cuda(
    const at::Tensor& input_, const at::Tensor& weight_, const at::Tensor& offset_,
    const at::Tensor& mask_, const at::Tensor& bias_, int64_t stride_h, int64_t stride_w,
    int64_t pad_h, int64_t pad_w, int64_t dilation_h, int64_t dilation_w, int64_t groups,
    int64_t offset_groups, bool use_mask) {
  const Geometry g = deform_conv2d_geometry::check(
      input_, weight_, offset_, mask_, bias_, stride_h, stride_w, pad_h, pad_w, dilation_h,
      dilation_w, groups, offset_groups, use_mask);
  const auto t = check_cuda(input_, weight_, offset_, mask_, bias_, use_mask);
  const c10::cuda::CUDAGuard device_guard(t.input.device());
  const cuda::DeformConv2dParams q = make_cuda_params(g, stride_h, stride_w, pad_h, pad_w, dilation_h, dilation_w,
                               offset_groups, use_mask);

  at::Tensor output = at::empty({g.batch, g.out_channels, g.out_h, g.out_w}, t.input.options());
  if (g.batch == 0) return output;
  const int64_t K = g.kernel_h * g.kernel_w, P = g.out_h * g.out_w, HW = g.in_h * g.in_w;
  const int64_t cin_g = g.in_channels / groups, cout_g = g.out_channels / groups;
  at::Tensor columns = at::empty({g.in_channels * K, P}, t.input.options());
  const at::Tensor weight_g = t.weight.view({groups, cout_g, cin_g * K});
  const at::Tensor columns_g = columns.view({groups, cin_g * K, P});
  const at::Tensor bias_g = t.bias.view({groups, cout_g, 1});
  cudaStream_t stream = at::cuda::getCurrentCUDAStream();

  AT_DISPATCH_FLOATING_TYPES_AND2(at::kHalf, at::kBFloat16, t.input.scalar_type(),
                                  "opmatrix::deform_conv2d (CUDA)", [&] {
    for (int64_t n = 0; n < g.batch; ++n) {
      cuda::deformable_im2col<scalar_t>(
          q, offset_groups, t.input.data_ptr<scalar_t>() + n * g.in_channels * HW,
          t.offset.data_ptr<scalar_t>() + n * offset_groups * 2 * K * P,
          use_mask ? t.mask.data_ptr<scalar_t>() + n * offset_groups * K * P : nullptr,
          columns.data_ptr<scalar_t>(), stream);
      C10_CUDA_KERNEL_LAUNCH_CHECK();
      at::Tensor out_n = output.select(0, n).view({groups, cout_g, P});
      for (int64_t grp = 0; grp < groups; ++grp) {
        at::Tensor out_ng = out_n.select(0, grp);
        at::addmm_out(out_ng, bias_g.select(0, grp), weight_g.select(0, grp), columns_g.select(0, grp));
      }
    }
  });
  return output;
}

std::tuple<at::Tensor, at::Tensor, at::Tensor, at::Tensor, at::Tensor> deform_conv2d_backward_cuda(
    const at::Tensor& grad_, const at::Tensor& input_, const at::Tensor& weight_,
    const at::Tensor& offset_, const at::Tensor& mask_, const at::Tensor& bias_,
    int64_t stride_h, int64_t stride_w, int64_t pad_h, int64_t pad_w, int64_t dilation_h,
    int64_t dilation_w, int64_t groups, int64_t offset_groups, bool use_mask) {
  const Geometry g = deform_conv2d_geometry::check(
      input_, weight_, offset_, mask_, bias_, stride_h, stride_w, pad_h, pad_w, dilation_h,
      dilation_w, groups, offset_groups, use_mask);
  const auto t = check_cuda(input_, weight_, offset_, mask_, bias_, use_mask);
  TORCH_CHECK(grad_.is_cuda() && grad_.device() == t.input.device() &&
                  grad_.scalar_type() == t.input.scalar_type(),
              "deform_conv2d backward: grad must be on the input's device, with its dtype");
  TORCH_CHECK(grad_.dim() == 4 && grad_.size(0) == g.batch && grad_.size(1) == g.out_channels &&
                  grad_.size(2) == g.out_h && grad_.size(3) == g.out_w,
              "deform_conv2d backward: grad must have the output's shape");
  const c10::cuda::CUDAGuard device_guard(t.input.device());
  const cuda::DeformConv2dParams q = make_cuda_params(g, stride_h, stride_w, pad_h, pad_w, dilation_h, dilation_w,
                               offset_groups, use_mask);
  const at::Tensor grad = grad_.contiguous();

  at::Tensor grad_input = at::zeros_like(t.input);
  at::Tensor grad_weight = at::zeros_like(t.weight);
  at::Tensor grad_offset = at::zeros_like(t.offset);
  at::Tensor grad_mask = at::zeros_like(t.mask);
  at::Tensor grad_bias = at::sum(grad, {0, 2, 3});
  if (g.batch == 0) return {grad_input, grad_weight, grad_offset, grad_mask, grad_bias};

  const int64_t K = g.kernel_h * g.kernel_w, P = g.out_h * g.out_w, HW = g.in_h * g.in_w;
  const int64_t cin_g = g.in_channels / groups, cout_g = g.out_channels / groups;
  at::Tensor columns = at::empty({g.in_channels * K, P}, t.input.options());
  at::Tensor grad_columns = at::empty({g.in_channels * K, P}, t.input.options());
  const at::Tensor weight_g = t.weight.view({groups, cout_g, cin_g * K});
  at::Tensor grad_weight_g = grad_weight.view({groups, cout_g, cin_g * K});
  const at::Tensor columns_g = columns.view({groups, cin_g * K, P});
  at::Tensor grad_columns_g = grad_columns.view({groups, cin_g * K, P});
  cudaStream_t stream = at::cuda::getCurrentCUDAStream();

  AT_DISPATCH_FLOATING_TYPES_AND2(at::kHalf, at::kBFloat16, t.input.scalar_type(),
                                  "opmatrix::_deform_conv2d_backward (CUDA)", [&] {
    for (int64_t n = 0; n < g.batch; ++n) {
      const scalar_t* input = t.input.data_ptr<scalar_t>() + n * g.in_channels * HW;
      const scalar_t* offset = t.offset.data_ptr<scalar_t>() + n * offset_groups * 2 * K * P;
      const scalar_t* mask = use_mask ? t.mask.data_ptr<scalar_t>() + n * offset_groups * K * P : nullptr;
      cuda::deformable_im2col<scalar_t>(q, offset_groups, input, offset, mask,
                                        columns.data_ptr<scalar_t>(), stream);
      C10_CUDA_KERNEL_LAUNCH_CHECK();
      const at::Tensor grad_n = grad.select(0, n).view({groups, cout_g, P});
      for (int64_t grp = 0; grp < groups; ++grp) {
        const at::Tensor go = grad_n.select(0, grp);
        at::Tensor gw = grad_weight_g.select(0, grp);
        gw.addmm_(go, columns_g.select(0, grp).t());
        at::Tensor gc = grad_columns_g.select(0, grp);
        at::mm_out(gc, weight_g.select(0, grp).t(), go);
      }
      cuda::deformable_coord_grad<scalar_t>(
          q, offset_groups, input, offset, mask, grad_columns.data_ptr<scalar_t>(),
          grad_offset.data_ptr<scalar_t>() + n * offset_groups * 2 * K * P,
          use_mask ? grad_mask.data_ptr<scalar_t>() + n * offset_groups * K * P : nullptr, stream);
      C10_CUDA_KERNEL_LAUNCH_CHECK();
      cuda::deformable_col2im<scalar_t>(q, offset_groups, offset, mask, grad_columns.data_ptr<scalar_t>(),
                                        grad_input.data_ptr<scalar_t>() + n * g.in_channels * HW, stream);
      C10_CUDA_KERNEL_LAUNCH_CHECK();
    }
  });
  return {grad_input, grad_weight, grad_offset, grad_mask, grad_bias};
}

}  // namespace

TORCH_LIBRARY_IMPL(opmatrix, CUDA, m) {
  m.impl("deform_conv2d", TORCH_FN(deform_conv2d_forward_cuda));
  m.impl("_deform_conv2d_backward", TORCH_FN(deform_conv2d_backward_cuda));
}

}  // namespace opmatrix
