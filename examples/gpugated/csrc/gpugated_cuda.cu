// CUDA kernel of gpugated::scale: one thread per element, on the current stream of x's device.
#include <ATen/Dispatch.h>
#include <ATen/core/Tensor.h>
#include <ATen/ops/empty_like.h>
#include <c10/cuda/CUDAException.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#include <torch/library.h>

namespace gpugated {
namespace {

template <typename T>
__global__ void scale_kernel(const T* src, T* dst, T factor, int64_t n) {
  const int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  if (i < n) dst[i] = src[i] * factor;
}

at::Tensor scale_cuda(const at::Tensor& x_in, double s) {
  TORCH_CHECK(x_in.device().is_cuda(), "gpugated::scale (CUDA kernel): x must be a CUDA tensor");
  TORCH_CHECK(at::isFloatingType(x_in.scalar_type()), "gpugated::scale: x must be a floating tensor, got ",
              x_in.scalar_type());
  const c10::cuda::CUDAGuard guard(x_in.device());
  const at::Tensor x = x_in.contiguous();
  at::Tensor out = at::empty_like(x);
  const int64_t n = x.numel();
  if (n == 0) return out;
  constexpr int threads = 256;
  const int blocks = static_cast<int>((n + threads - 1) / threads);
  const cudaStream_t stream = c10::cuda::getCurrentCUDAStream();
  AT_DISPATCH_FLOATING_TYPES(x.scalar_type(), "gpugated_scale_cuda", [&] {
    scale_kernel<scalar_t><<<blocks, threads, 0, stream>>>(x.data_ptr<scalar_t>(), out.data_ptr<scalar_t>(),
                                                           static_cast<scalar_t>(s), n);
  });
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  return out;
}

}  // namespace

TORCH_LIBRARY_IMPL(gpugated, CUDA, m) {
  m.impl("scale", &scale_cuda);
}

}  // namespace gpugated
