// The launchers of opmatrix::roi_align's CUDA kernels (roi_align_device.cu), on raw device
// pointers to contiguous tensors, for the host side (roi_align_kernel.cpp). Each launches on
// `stream` and returns at once; the caller checks the launch (C10_CUDA_KERNEL_LAUNCH_CHECK).
// Instantiated for float, double, c10::Half and c10::BFloat16.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace opmatrix {
namespace cuda {

// output [K, channels, pooled_height, pooled_width] (total = its numel) from input
// [N, channels, height, width] and rois [K, 5].
template <typename T>
void roi_align_forward(int64_t total, const T* input, const T* rois, double spatial_scale, int64_t channels,
                       int64_t height, int64_t width, int64_t pooled_height, int64_t pooled_width,
                       int64_t sampling_ratio, bool aligned, T* output, cudaStream_t stream);

// grad_input [N, channels, height, width], zeroed by the caller, += the scatter of grad
// [K, channels, pooled_height, pooled_width] (total = its numel).
template <typename T>
void roi_align_backward(int64_t total, const T* grad, const T* rois, double spatial_scale, int64_t channels,
                        int64_t height, int64_t width, int64_t pooled_height, int64_t pooled_width,
                        int64_t sampling_ratio, bool aligned, T* grad_input, cudaStream_t stream);

}  // namespace cuda
}  // namespace opmatrix
