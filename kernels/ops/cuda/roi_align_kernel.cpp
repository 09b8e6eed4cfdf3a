// The CUDA backend of opmatrix::roi_align and _roi_align_backward: checks, a device guard on
// the input's device, the current stream, then the kernels of roi_align_device.cu for
// float, double, half and bfloat16.
#define TORCH_ASSERT_ONLY_METHOD_OPERATORS
#include <ATen/core/Tensor.h>
#include <ATen/Dispatch.h>
#include <ATen/cuda/CUDAContext.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/zeros.h>
#include <c10/cuda/CUDAException.h>
#include <c10/cuda/CUDAGuard.h>
#include <torch/library.h>

#include "ops/cuda/roi_align_device.h"
#include "ops/roi_align_check.h"

namespace opmatrix {
namespace {

at::Tensor roi_align_cuda(const at::Tensor& input, const at::Tensor& rois, double spatial_scale,
                          int64_t pooled_height, int64_t pooled_width, int64_t sampling_ratio,
                          bool aligned) {
  TORCH_CHECK(input.is_cuda(), "input must be a CUDA tensor");
  TORCH_CHECK(rois.is_cuda(), "rois must be a CUDA tensor");
  roi_align_check(input, rois, pooled_height, pooled_width);
  c10::cuda::CUDAGuard device_guard(input.device());
  at::Tensor output = at::empty({rois.size(0), input.size(1), pooled_height, pooled_width},
                                input.options());
  if (output.numel() == 0) return output;
  if (input.numel() == 0) return output.zero_();
  const at::Tensor input_c = input.contiguous();
  const at::Tensor rois_c = rois.contiguous();
  cudaStream_t stream = at::cuda::getCurrentCUDAStream();
  AT_DISPATCH_FLOATING_TYPES_AND2(at::kHalf, at::kBFloat16, input.scalar_type(), "opmatrix::roi_align_cuda", [&] {
    cuda::roi_align_forward<scalar_t>(
        output.numel(), input_c.data_ptr<scalar_t>(), rois_c.data_ptr<scalar_t>(), spatial_scale,
        input.size(1), input.size(2), input.size(3), pooled_height, pooled_width, sampling_ratio,
        aligned, output.data_ptr<scalar_t>(), stream);
  });
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  return output;
}

at::Tensor roi_align_backward_cuda(const at::Tensor& grad, const at::Tensor& rois,
                                   double spatial_scale, int64_t pooled_height,
                                   int64_t pooled_width, int64_t batch_size, int64_t channels,
                                   int64_t height, int64_t width, int64_t sampling_ratio,
                                   bool aligned) {
  TORCH_CHECK(grad.is_cuda(), "grad must be a CUDA tensor");
  TORCH_CHECK(rois.is_cuda(), "rois must be a CUDA tensor");
  roi_align_backward_check(grad, rois, pooled_height, pooled_width, batch_size, channels, height,
                           width);
  c10::cuda::CUDAGuard device_guard(grad.device());
  at::Tensor grad_input = at::zeros({batch_size, channels, height, width}, grad.options());
  if (grad.numel() == 0 || grad_input.numel() == 0) return grad_input;
  const at::Tensor grad_c = grad.contiguous();
  const at::Tensor rois_c = rois.contiguous();
  cudaStream_t stream = at::cuda::getCurrentCUDAStream();
  AT_DISPATCH_FLOATING_TYPES_AND2(at::kHalf, at::kBFloat16, grad.scalar_type(), "opmatrix::roi_align_backward_cuda", [&] {
    cuda::roi_align_backward<scalar_t>(
        grad.numel(), grad_c.data_ptr<scalar_t>(), rois_c.data_ptr<scalar_t>(), spatial_scale,
        channels, height, width, pooled_height, pooled_width, sampling_ratio, aligned,
        grad_input.data_ptr<scalar_t>(), stream);
  });
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  return grad_input;
}

}  // namespace

TORCH_LIBRARY_IMPL(opmatrix, CUDA, m) {
  m.impl(TORCH_SELECTIVE_NAME("opmatrix::roi_align"), TORCH_FN(roi_align_cuda));
  m.impl(TORCH_SELECTIVE_NAME("opmatrix::_roi_align_backward"), TORCH_FN(roi_align_backward_cuda));
}

}  // namespace opmatrix
