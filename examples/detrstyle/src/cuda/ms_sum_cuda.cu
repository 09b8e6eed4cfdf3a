#include <ATen/ATen.h>
#include <ATen/Dispatch.h>
#include <c10/cuda/CUDAException.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>

#include "ms_sum.h"

namespace detrstyle {
namespace {

// One thread per output element (b, k): walks the S positions of its column.
template <typename T>
__global__ void ms_sum_kernel(const T* src, T* dst, int64_t n, int64_t s, int64_t md) {
  const int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  if (i >= n * md) return;
  const int64_t b = i / md, k = i % md;
  T acc = T(0);
  for (int64_t p = 0; p < s; ++p) acc += src[(b * s + p) * md + k];
  dst[i] = acc;
}

}  // namespace

at::Tensor ms_sum_cuda(const at::Tensor& value_in) {
  TORCH_CHECK(value_in.dim() == 4, "ms_sum: value must be [N, S, M, D], got ", value_in.dim(), " dimensions");
  const c10::cuda::CUDAGuard guard(value_in.device());
  const at::Tensor value = value_in.contiguous();
  const int64_t n = value.size(0), s = value.size(1), md = value.size(2) * value.size(3);
  at::Tensor out = at::empty({value.size(0), value.size(2), value.size(3)}, value.options());
  if (out.numel() == 0) return out;
  constexpr int threads = 256;
  const int blocks = static_cast<int>((n * md + threads - 1) / threads);
  AT_DISPATCH_FLOATING_TYPES(value.scalar_type(), "ms_sum_cuda", [&] {
    ms_sum_kernel<scalar_t><<<blocks, threads, 0, c10::cuda::getCurrentCUDAStream()>>>(
        value.data_ptr<scalar_t>(), out.data_ptr<scalar_t>(), n, s, md);
  });
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  return out;
}

}  // namespace detrstyle
