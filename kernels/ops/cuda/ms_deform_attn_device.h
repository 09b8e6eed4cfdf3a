// The launchers of opmatrix::ms_deform_attn's CUDA kernels (ms_deform_attn_device.cu), on raw
// device pointers to contiguous tensors (shapes and starts on the same device), for the host
// side (ms_deform_attn_kernel.cpp). Each launches on `stream` and returns at once; the caller
// checks the launch (C10_CUDA_KERNEL_LAUNCH_CHECK). Instantiated for float, double, c10::Half
// and c10::BFloat16.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace opmatrix {
namespace cuda {

struct MsDeformAttnDims {
  int64_t batch, spatial, heads, channels, queries, levels, points;
};

// out [N, Lq, M * D] (N * Lq * M * D > 0).
template <typename scalar_t>
void ms_deform_attn_forward(const MsDeformAttnDims& g, const scalar_t* value, const int64_t* shapes,
                            const int64_t* starts, const scalar_t* loc, const scalar_t* attn,
                            scalar_t* out, cudaStream_t stream);

// grad_value (zeroed by the caller) += the scatter; grad_loc and grad_attn written.
template <typename scalar_t>
void ms_deform_attn_backward(const MsDeformAttnDims& g, const scalar_t* grad_out, const scalar_t* value,
                             const int64_t* shapes, const int64_t* starts, const scalar_t* loc,
                             const scalar_t* attn, scalar_t* grad_value, scalar_t* grad_loc,
                             scalar_t* grad_attn, cudaStream_t stream);

}  // namespace cuda
}  // namespace opmatrix
