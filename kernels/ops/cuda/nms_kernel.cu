// CUDA kernel of opmatrix::nms (the classic bitmask algorithm, as torchvision's): boxes
// sorted by score (stable, like the CPU kernel, so ties break the same way); one 64-thread
// block per (row block, column block) writes a 64-bit mask of the later boxes each box
// suppresses; the greedy walk over the masks runs in one block on the GPU, with the
// suppressed set in shared memory. The mask has n * n/64 words (312 MB at 50 000 boxes):
// walking it on the host meant copying all of it to pageable memory first, which made 50k
// boxes 13x slower than torchvision on an H100 (bench/kernels/gpu_bench.py). The host walk
// remains for sets whose suppressed set does not fit in shared memory.
// IoU arithmetic in at::opmath_type (float for half/bfloat16).
#define TORCH_ASSERT_ONLY_METHOD_OPERATORS
#include <ATen/core/Tensor.h>
#include <ATen/Dispatch.h>
#include <ATen/OpMathType.h>
#include <ATen/cuda/CUDAContext.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/zeros.h>
#include <c10/cuda/CUDAException.h>
#include <c10/cuda/CUDAGuard.h>
#include <torch/library.h>

#include <vector>

#include "ops/nms_check.h"

namespace opmatrix {
namespace {

constexpr int kThreadsPerBlock = sizeof(unsigned long long) * 8;

template <typename T>
__device__ inline bool iou_above(const T* a, const T* b, double threshold) {
  using acc_t = at::opmath_type<T>;
  const acc_t ax1 = a[0], ay1 = a[1], ax2 = a[2], ay2 = a[3];
  const acc_t bx1 = b[0], by1 = b[1], bx2 = b[2], by2 = b[3];
  const acc_t w = max(min(ax2, bx2) - max(ax1, bx1), acc_t(0));
  const acc_t h = max(min(ay2, by2) - max(ay1, by1), acc_t(0));
  const acc_t inter = w * h;
  const acc_t area_a = (ax2 - ax1) * (ay2 - ay1);
  const acc_t area_b = (bx2 - bx1) * (by2 - by1);
  return static_cast<double>(inter / (area_a + area_b - inter)) > threshold;
}

template <typename T>
__global__ void nms_mask_kernel(int64_t n_boxes, double threshold, const T* boxes,
                                unsigned long long* mask) {
  const int64_t row_block = blockIdx.y;
  const int64_t col_block = blockIdx.x;
  if (row_block > col_block) return;
  const int64_t col_blocks = (n_boxes + kThreadsPerBlock - 1) / kThreadsPerBlock;
  const int row_size = static_cast<int>(min(n_boxes - row_block * kThreadsPerBlock, int64_t(kThreadsPerBlock)));
  const int col_size = static_cast<int>(min(n_boxes - col_block * kThreadsPerBlock, int64_t(kThreadsPerBlock)));

  __shared__ T block_boxes[kThreadsPerBlock * 4];
  if (threadIdx.x < col_size) {
    for (int k = 0; k < 4; ++k) {
      block_boxes[threadIdx.x * 4 + k] = boxes[(kThreadsPerBlock * col_block + threadIdx.x) * 4 + k];
    }
  }
  __syncthreads();

  if (threadIdx.x < row_size) {
    const int64_t cur = kThreadsPerBlock * row_block + threadIdx.x;
    const T* cur_box = boxes + cur * 4;
    unsigned long long bits = 0;
    const int start = row_block == col_block ? threadIdx.x + 1 : 0;
    for (int i = start; i < col_size; ++i) {
      if (iou_above(cur_box, block_boxes + i * 4, threshold)) bits |= 1ULL << i;
    }
    mask[cur * col_blocks + col_block] = bits;
  }
}

// Greedy walk over the mask in one block: box i (in score order) is kept unless an earlier
// kept box suppressed it; a kept box ORs its mask row into `removed`. Each thread owns the
// words j of `removed` it updates within one column block (the assignment only changes
// after a barrier), and every thread tracks the current word itself (`live`), so no word is
// read while another thread writes it.
constexpr int kGatherThreads = 1024;
constexpr int64_t kGatherMaxColBlocks = (48 * 1024) / sizeof(unsigned long long);  // default dynamic smem

__global__ void nms_gather_keep_kernel(int64_t n_boxes, const unsigned long long* mask, bool* keep) {
  extern __shared__ unsigned long long removed[];
  const int col_blocks = static_cast<int>((n_boxes + kThreadsPerBlock - 1) / kThreadsPerBlock);
  for (int j = threadIdx.x; j < col_blocks; j += blockDim.x) removed[j] = 0;
  __syncthreads();
  for (int nblock = 0; nblock < col_blocks; ++nblock) {
    unsigned long long live = removed[nblock];
    const int64_t first = int64_t(nblock) * kThreadsPerBlock;
    const int count = static_cast<int>(min(n_boxes - first, int64_t(kThreadsPerBlock)));
    for (int bit = 0; bit < count; ++bit) {
      if (live & (1ULL << bit)) continue;
      const int64_t i = first + bit;
      if (threadIdx.x == 0) keep[i] = true;
      const unsigned long long* row = mask + i * col_blocks;
      live |= row[nblock];
      for (int j = nblock + 1 + threadIdx.x; j < col_blocks; j += blockDim.x) removed[j] |= row[j];
    }
    __syncthreads();
  }
}

at::Tensor nms_cuda(const at::Tensor& dets, const at::Tensor& scores, double iou_threshold) {
  TORCH_CHECK(dets.is_cuda(), "dets must be a CUDA tensor");
  TORCH_CHECK(scores.is_cuda(), "scores must be a CUDA tensor");
  nms_check(dets, scores);
  c10::cuda::CUDAGuard device_guard(dets.device());
  if (dets.numel() == 0) return at::empty({0}, dets.options().dtype(at::kLong));

  const at::Tensor order = std::get<1>(scores.sort(/*stable=*/true, /*dim=*/0, /*descending=*/true));
  const at::Tensor boxes = dets.index_select(0, order).contiguous();
  const int64_t n = dets.size(0);
  const int64_t col_blocks = (n + kThreadsPerBlock - 1) / kThreadsPerBlock;
  TORCH_CHECK(col_blocks <= 65535, "nms: too many boxes for the CUDA kernel (", n, ")");
  at::Tensor mask = at::empty({n * col_blocks}, dets.options().dtype(at::kLong));

  const dim3 blocks(col_blocks, col_blocks);
  const dim3 threads(kThreadsPerBlock);
  cudaStream_t stream = at::cuda::getCurrentCUDAStream();
  AT_DISPATCH_FLOATING_TYPES_AND2(at::kHalf, at::kBFloat16, dets.scalar_type(), "opmatrix::nms_cuda", [&] {
    nms_mask_kernel<scalar_t><<<blocks, threads, 0, stream>>>(
        n, iou_threshold, boxes.data_ptr<scalar_t>(),
        reinterpret_cast<unsigned long long*>(mask.data_ptr<int64_t>()));
  });
  C10_CUDA_KERNEL_LAUNCH_CHECK();

  if (col_blocks <= kGatherMaxColBlocks) {
    at::Tensor keep = at::zeros({n}, dets.options().dtype(at::kBool));
    nms_gather_keep_kernel<<<1, kGatherThreads, col_blocks * sizeof(unsigned long long), stream>>>(
        n, reinterpret_cast<const unsigned long long*>(mask.data_ptr<int64_t>()),
        keep.data_ptr<bool>());
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
    const int64_t block = i / kThreadsPerBlock;
    const int64_t bit = i % kThreadsPerBlock;
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
