// The launchers of opmatrix::nms's CUDA kernels (nms_device.cu), on raw device pointers, for
// the host side (nms_kernel.cpp). Each launches on `stream` and returns at once; the caller
// checks the launch (C10_CUDA_KERNEL_LAUNCH_CHECK). Instantiated for float, double, c10::Half
// and c10::BFloat16.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace opmatrix {
namespace cuda {

constexpr int kThreadsPerBlock = sizeof(unsigned long long) * 8;
// The walk on the GPU keeps the suppressed set in the default dynamic shared memory.
constexpr int64_t kGatherMaxColBlocks = (48 * 1024) / sizeof(unsigned long long);

inline int64_t nms_col_blocks(int64_t n_boxes) { return (n_boxes + kThreadsPerBlock - 1) / kThreadsPerBlock; }

// mask[i * col_blocks + j]: bit b set where box i suppresses box j * 64 + b (boxes sorted by
// score, 4 coordinates each, contiguous).
template <typename T>
void nms_mask(int64_t n_boxes, double threshold, const T* sorted_boxes, unsigned long long* mask,
              cudaStream_t stream);

// keep[i] = true for each box the greedy walk keeps (keep zeroed by the caller); only where
// nms_col_blocks(n_boxes) <= kGatherMaxColBlocks.
void nms_gather_keep(int64_t n_boxes, const unsigned long long* mask, bool* keep, cudaStream_t stream);

}  // namespace cuda
}  // namespace opmatrix
