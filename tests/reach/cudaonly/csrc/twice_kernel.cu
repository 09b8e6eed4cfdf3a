// x * 2 on the GPU, one thread per element.
#include <ATen/ATen.h>

namespace {
__global__ void twice_kernel(const float* x, float* y, int64_t n) {
  const int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  if (i < n) y[i] = 2 * x[i];
}
}  // namespace

at::Tensor twice_cuda(const at::Tensor& x) {
  auto in = x.contiguous().to(at::kFloat);
  auto out = at::empty_like(in);
  const int64_t n = in.numel();
  if (n > 0) twice_kernel<<<(n + 255) / 256, 256>>>(in.data_ptr<float>(), out.data_ptr<float>(), n);
  return out;
}
