// CUDA kernels of boxops: one thread per output element, on the current stream of the
// input's device.
#include <ATen/Dispatch.h>
#include <ATen/core/Tensor.h>
#include <ATen/ops/empty.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#include <torch/library.h>

#include "box_check.h"

namespace boxops {
namespace {

template <typename T>
__device__ T area(const T* b) {
  return max(b[2] - b[0], T(0)) * max(b[3] - b[1], T(0));
}

template <typename T>
__global__ void box_area_kernel(const T* boxes, T* out, int64_t n) {
  const int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  if (i < n) out[i] = area(boxes + 4 * i);
}

template <typename T>
__global__ void box_iou_kernel(const T* a, const T* b, T* out, int64_t n, int64_t m) {
  const int64_t k = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  if (k >= n * m) return;
  const T* x = a + 4 * (k / m);
  const T* y = b + 4 * (k % m);
  const T w = max(min(x[2], y[2]) - max(x[0], y[0]), T(0));
  const T h = max(min(x[3], y[3]) - max(x[1], y[1]), T(0));
  const T inter = w * h;
  const T uni = area(x) + area(y) - inter;
  out[k] = uni > T(0) ? inter / uni : T(0);
}

constexpr int kThreads = 256;

int blocks_for(int64_t n) { return static_cast<int>((n + kThreads - 1) / kThreads); }

at::Tensor box_area_cuda(const at::Tensor& boxes_in) {
  check_boxes(boxes_in, "boxes");
  const c10::cuda::CUDAGuard guard(boxes_in.device());
  const at::Tensor boxes = boxes_in.contiguous();
  at::Tensor out = at::empty({boxes.size(0)}, boxes.options());
  if (boxes.size(0) == 0) return out;
  const cudaStream_t stream = c10::cuda::getCurrentCUDAStream();
  AT_DISPATCH_FLOATING_TYPES(boxes.scalar_type(), "box_area_cuda", [&] {
    box_area_kernel<scalar_t><<<blocks_for(boxes.size(0)), kThreads, 0, stream>>>(
        boxes.data_ptr<scalar_t>(), out.data_ptr<scalar_t>(), boxes.size(0));
  });
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  return out;
}

at::Tensor box_iou_cuda(const at::Tensor& a_in, const at::Tensor& b_in) {
  check_boxes(a_in, "a");
  check_boxes(b_in, "b");
  TORCH_CHECK(a_in.scalar_type() == b_in.scalar_type(), "a and b must have one dtype");
  TORCH_CHECK(a_in.device() == b_in.device(), "a and b must be on one device");
  const c10::cuda::CUDAGuard guard(a_in.device());
  const at::Tensor a = a_in.contiguous(), b = b_in.contiguous();
  at::Tensor out = at::empty({a.size(0), b.size(0)}, a.options());
  if (out.numel() == 0) return out;
  const cudaStream_t stream = c10::cuda::getCurrentCUDAStream();
  AT_DISPATCH_FLOATING_TYPES(a.scalar_type(), "box_iou_cuda", [&] {
    box_iou_kernel<scalar_t><<<blocks_for(out.numel()), kThreads, 0, stream>>>(
        a.data_ptr<scalar_t>(), b.data_ptr<scalar_t>(), out.data_ptr<scalar_t>(), a.size(0), b.size(0));
  });
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  return out;
}

}  // namespace

TORCH_LIBRARY_IMPL(boxops, CUDA, m) {
  m.impl("box_area", TORCH_FN(box_area_cuda));
  m.impl("box_iou", TORCH_FN(box_iou_cuda));
}

}  // namespace boxops
