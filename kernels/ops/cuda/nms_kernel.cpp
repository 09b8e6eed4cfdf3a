// The CUDA backend of opmatrix::nms: boxes sorted by score (stable, like the CPU kernel, so
// ties break the same way), the suppression mask computed on the GPU (nms_device.cu), then
// walked: on the GPU where the suppressed set fits in shared memory, else on the host. The
// mask has n * n/64 words (312 MB at 50 000 boxes): walking it on the host meant copying all
// of it to pageable memory first, which made 50k boxes 13x slower than torchvision on an H100
// (bench/kernels/gpu_bench.py).
#define TORCH_ASSERT_ONLY_METHOD_OPERATORS
#include <ATen/core/Tensor.h>
#include <ATen/Dispatch.h>
#include <ATen/cuda/CUDAContext.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/zeros.h>
#include <c10/cuda/CUDAException.h>
#include <c10/cuda/CUDAGuard.h>
#include <torch/library.h>

#include <vector>

#include "ops/cuda/nms_device.h"
#include "ops/nms_check.h"

namespace opmatrix {
namespace {

at::Tensor nms_cuda(const at::Tensor& dets, const at::Tensor& scores, double iou_threshold) {
  TORCH_CHECK(dets.is_cuda(), "dets must be a CUDA tensor");
  TORCH_CHECK(scores.is_cuda(), "scores must be a CUDA tensor");
  nms_check(dets, scores);
  c10::cuda::CUDAGuard device_guard(dets.device());
  if (dets.numel() == 0) return at::empty({0}, dets.options().dtype(at::kLong));

  const at::Tensor order = std::get<1>(scores.sort(/*stable=*/true, /*dim=*/0, /*descending=*/true));
  const at::Tensor boxes = dets.index_select(0, order).contiguous();
  const int64_t n = dets.size(0);
  const int64_t col_blocks = cuda::nms_col_blocks(n);
  TORCH_CHECK(col_blocks <= 65535, "nms: too many boxes for the CUDA kernel (", n, ")");
  at::Tensor mask = at::empty({n * col_blocks}, dets.options().dtype(at::kLong));

  cudaStream_t stream = at::cuda::getCurrentCUDAStream();
  AT_DISPATCH_FLOATING_TYPES_AND2(at::kHalf, at::kBFloat16, dets.scalar_type(), "opmatrix::nms_cuda", [&] {
    cuda::nms_mask<scalar_t>(n, iou_threshold, boxes.data_ptr<scalar_t>(),
                             reinterpret_cast<unsigned long long*>(mask.data_ptr<int64_t>()), stream);
  });
  C10_CUDA_KERNEL_LAUNCH_CHECK();

  if (col_blocks <= cuda::kGatherMaxColBlocks) {
    at::Tensor keep = at::zeros({n}, dets.options().dtype(at::kBool));
    cuda::nms_gather_keep(n, reinterpret_cast<const unsigned long long*>(mask.data_ptr<int64_t>()),
                          keep.data_ptr<bool>(), stream);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    return order.masked_select(keep);
  }

  const at::Tensor mask_cpu = mask.to(at::kCPU);
  const auto* mask_host = reinterpret_cast<const unsigned long long*>(mask_cpu.data_ptr<int64_t>());
  std::vector<unsigned long long> removed(col_blocks, 0);
  at::Tensor keep = at::empty({n}, dets.options().dtype(at::kLong).device(at::kCPU));
  int64_t* keep_out = keep.data_ptr<int64_t>();
  int64_t num_kept = 0;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t block = i / cuda::kThreadsPerBlock;
    const int64_t bit = i % cuda::kThreadsPerBlock;
    if (removed[block] & (1ULL << bit)) continue;
    keep_out[num_kept++] = i;
    const unsigned long long* row = mask_host + i * col_blocks;
    for (int64_t j = block; j < col_blocks; ++j) removed[j] |= row[j];
  }
  return order.index_select(0, keep.narrow(0, 0, num_kept).to(order.device(), /*non_blocking=*/true));
}

}  // namespace

TORCH_LIBRARY_IMPL(opmatrix, CUDA, m) {
  m.impl(TORCH_SELECTIVE_NAME("opmatrix::nms"), TORCH_FN(nms_cuda));
}

}  // namespace opmatrix
