// The CUDA backend of opmatrix::ms_deform_attn and its backward: checks (index tensors from
// the CPU or the GPU), a device guard on value's device, the current stream, then the kernels
// of ms_deform_attn_device.cu for float, double, half and bfloat16.
#define TORCH_ASSERT_ONLY_METHOD_OPERATORS
#include <ATen/core/Tensor.h>
#include <ATen/Dispatch.h>
#include <ATen/cuda/CUDAContext.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/zeros_like.h>
#include <c10/cuda/CUDAException.h>
#include <c10/cuda/CUDAGuard.h>
#include <torch/library.h>

#include <tuple>

#include "ops/cuda/ms_deform_attn_device.h"
#include "ops/ms_deform_attn_check.h"

namespace opmatrix {
namespace {

using ms_deform_attn_geometry::Geometry;

struct CudaInputs {
  at::Tensor value, shapes, starts, loc, attn;
};

// Index tensors may come from the CPU (as in the CPU op) or already be on the GPU (as in
// Deformable-DETR): either is accepted and moved next to value.
CudaInputs check_cuda(const at::Tensor& value, const at::Tensor& spatial_shapes,
                  const at::Tensor& level_start_index, const at::Tensor& sampling_loc,
                  const at::Tensor& attn_weight) {
  for (const at::Tensor* t : {&value, &sampling_loc, &attn_weight}) {
    TORCH_CHECK(t->is_cuda() && t->device() == value.device(),
                "ms_deform_attn (CUDA kernel): value, sampling_loc and attn_weight must be on the same CUDA device");
    TORCH_CHECK(t->scalar_type() == value.scalar_type(),
                "ms_deform_attn: value, sampling_loc and attn_weight must have the same dtype");
  }
  return {value.contiguous(), spatial_shapes.to(value.device()).contiguous(),
          level_start_index.to(value.device()).contiguous(), sampling_loc.contiguous(),
          attn_weight.contiguous()};
}

cuda::MsDeformAttnDims dims_of(const Geometry& g) {
  return cuda::MsDeformAttnDims{g.batch, g.spatial, g.heads, g.channels, g.queries, g.levels, g.points};
}

at::Tensor ms_deform_attn_forward_cuda(
    const at::Tensor& value_, const at::Tensor& spatial_shapes, const at::Tensor& level_start_index,
    const at::Tensor& sampling_loc_, const at::Tensor& attn_weight_, int64_t im2col_step) {
  const Geometry g = ms_deform_attn_geometry::check(value_, spatial_shapes, level_start_index,
                                                    sampling_loc_, attn_weight_, im2col_step);
  const auto t = check_cuda(value_, spatial_shapes, level_start_index, sampling_loc_, attn_weight_);
  const c10::cuda::CUDAGuard device_guard(t.value.device());
  at::Tensor output = at::empty({g.batch, g.queries, g.heads * g.channels}, t.value.options());
  const int64_t total = output.numel();
  if (total == 0) return output;
  cudaStream_t stream = at::cuda::getCurrentCUDAStream();
  AT_DISPATCH_FLOATING_TYPES_AND2(at::kHalf, at::kBFloat16, t.value.scalar_type(),
                                  "opmatrix::ms_deform_attn (CUDA)", [&] {
    cuda::ms_deform_attn_forward<scalar_t>(
        dims_of(g), t.value.data_ptr<scalar_t>(), t.shapes.data_ptr<int64_t>(),
        t.starts.data_ptr<int64_t>(), t.loc.data_ptr<scalar_t>(),
        t.attn.data_ptr<scalar_t>(), output.data_ptr<scalar_t>(), stream);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
  });
  return output;
}

std::tuple<at::Tensor, at::Tensor, at::Tensor> ms_deform_attn_backward_cuda(
    const at::Tensor& grad_output_, const at::Tensor& value_, const at::Tensor& spatial_shapes,
    const at::Tensor& level_start_index, const at::Tensor& sampling_loc_,
    const at::Tensor& attn_weight_, int64_t im2col_step) {
  const Geometry g = ms_deform_attn_geometry::check(value_, spatial_shapes, level_start_index,
                                                    sampling_loc_, attn_weight_, im2col_step);
  const auto t = check_cuda(value_, spatial_shapes, level_start_index, sampling_loc_, attn_weight_);
  TORCH_CHECK(grad_output_.is_cuda() && grad_output_.device() == t.value.device() &&
                  grad_output_.scalar_type() == t.value.scalar_type(),
              "ms_deform_attn backward: grad_output must be on value's device, with its dtype");
  TORCH_CHECK(grad_output_.dim() == 3 && grad_output_.size(0) == g.batch &&
                  grad_output_.size(1) == g.queries && grad_output_.size(2) == g.heads * g.channels,
              "ms_deform_attn backward: grad_output must be [N, Lq, M * D]");
  const c10::cuda::CUDAGuard device_guard(t.value.device());
  const at::Tensor grad_output = grad_output_.contiguous();
  at::Tensor grad_value = at::zeros_like(t.value);
  at::Tensor grad_loc = at::zeros_like(t.loc);
  at::Tensor grad_attn = at::zeros_like(t.attn);
  const int64_t total = t.attn.numel();
  if (total == 0 || g.channels == 0) return {grad_value, grad_loc, grad_attn};
  cudaStream_t stream = at::cuda::getCurrentCUDAStream();
  AT_DISPATCH_FLOATING_TYPES_AND2(at::kHalf, at::kBFloat16, t.value.scalar_type(),
                                  "opmatrix::_ms_deform_attn_backward (CUDA)", [&] {
    cuda::ms_deform_attn_backward<scalar_t>(
        dims_of(g), grad_output.data_ptr<scalar_t>(), t.value.data_ptr<scalar_t>(),
        t.shapes.data_ptr<int64_t>(), t.starts.data_ptr<int64_t>(),
        t.loc.data_ptr<scalar_t>(), t.attn.data_ptr<scalar_t>(),
        grad_value.data_ptr<scalar_t>(), grad_loc.data_ptr<scalar_t>(),
        grad_attn.data_ptr<scalar_t>(), stream);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
  });
  return {grad_value, grad_loc, grad_attn};
}

}  // namespace

TORCH_LIBRARY_IMPL(opmatrix, CUDA, m) {
  m.impl("ms_deform_attn", TORCH_FN(ms_deform_attn_forward_cuda));
  m.impl("_ms_deform_attn_backward", TORCH_FN(ms_deform_attn_backward_cuda));
}

}  // namespace opmatrix
