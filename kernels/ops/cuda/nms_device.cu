// The device code of opmatrix::nms on CUDA (its tensors, checks and registration are in
// nms_kernel.cpp): the classic bitmask algorithm, as torchvision's. One 64-thread block per
// (row block, column block) writes a 64-bit mask of the later boxes each box suppresses; the
// greedy walk over the masks runs in one block, with the suppressed set in shared memory.
// IoU arithmetic in at::opmath_type (float for half/bfloat16).
// Only CUDA's and c10's scalar headers here: nvcc parses a file once for the host and once
// per arch, and torch's tensor and dispatcher headers made that 5x the time of the kernels
// themselves (bench/compile/README.md).
#include <ATen/OpMathType.h>
#include <c10/util/BFloat16.h>
#include <c10/util/Half.h>

#include "ops/cuda/nms_device.h"

namespace opmatrix {
namespace cuda {
namespace {

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

}  // namespace

template <typename T>
void nms_mask(int64_t n_boxes, double threshold, const T* sorted_boxes, unsigned long long* mask,
              cudaStream_t stream) {
  const int64_t col_blocks = nms_col_blocks(n_boxes);
  const dim3 blocks(col_blocks, col_blocks);
  const dim3 threads(kThreadsPerBlock);
  nms_mask_kernel<T><<<blocks, threads, 0, stream>>>(n_boxes, threshold, sorted_boxes, mask);
}

void nms_gather_keep(int64_t n_boxes, const unsigned long long* mask, bool* keep, cudaStream_t stream) {
  nms_gather_keep_kernel<<<1, kGatherThreads, nms_col_blocks(n_boxes) * sizeof(unsigned long long), stream>>>(
      n_boxes, mask, keep);
}

#define OPMATRIX_NMS_INSTANTIATE(T) \
  template void nms_mask<T>(int64_t, double, const T*, unsigned long long*, cudaStream_t);
OPMATRIX_NMS_INSTANTIATE(float)
OPMATRIX_NMS_INSTANTIATE(double)
OPMATRIX_NMS_INSTANTIATE(c10::Half)
OPMATRIX_NMS_INSTANTIATE(c10::BFloat16)

}  // namespace cuda
}  // namespace opmatrix
