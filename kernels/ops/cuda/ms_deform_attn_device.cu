// The device code of opmatrix::ms_deform_attn and its backward on CUDA (Deformable-DETR's
// multi-scale deformable attention; tensors, checks and registration in
// ms_deform_attn_kernel.cpp). Forward: one thread per output element (n, q, m, d), so
// neighbouring threads read neighbouring channels of the same value pixel (coalesced).
// Backward: one thread per sample (n, q, m, l, p) looping over D; grad_value is scattered
// with atomics, grad_sampling_loc / grad_attn_weight are written directly. Arithmetic in
// at::opmath_type. Only CUDA's and c10's scalar headers here (nms_device.cu says why).
#include <ATen/OpMathType.h>
#include <ATen/cuda/Atomic.cuh>
#include <c10/util/BFloat16.h>
#include <c10/util/Half.h>

#include "ops/cuda/ms_deform_attn_device.h"
#include "ops/cuda/zero_pad_bilinear.cuh"

namespace opmatrix {
namespace cuda {
namespace {

using Dims = MsDeformAttnDims;

template <typename scalar_t>
__global__ void ms_deform_attn_forward_kernel_impl(Dims g, const scalar_t* value,
                                                   const int64_t* shapes, const int64_t* starts,
                                                   const scalar_t* loc, const scalar_t* attn,
                                                   scalar_t* out) {
  using T = at::opmath_type<scalar_t>;
  const int64_t M = g.heads, D = g.channels, L = g.levels, P = g.points;
  const int64_t total = g.batch * g.queries * M * D;
  for (int64_t e = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; e < total;
       e += int64_t(blockDim.x) * gridDim.x) {
    const int64_t d = e % D, u = e / D;  // u = (n, q, m)
    const int64_t m = u % M, n = u / (M * g.queries);
    const scalar_t* loc_u = loc + u * L * P * 2;
    const scalar_t* attn_u = attn + u * L * P;
    T acc = 0;
    for (int64_t l = 0; l < L; ++l) {
      const int64_t H = shapes[2 * l], W = shapes[2 * l + 1];
      const scalar_t* vbase = value + ((n * g.spatial + starts[l]) * M + m) * D + d;
      for (int64_t p = 0; p < P; ++p) {
        const T x = static_cast<T>(loc_u[(l * P + p) * 2]) * T(W) - T(0.5);
        const T y = static_cast<T>(loc_u[(l * P + p) * 2 + 1]) * T(H) - T(0.5);
        if (!cuda::inside_plane(y, x, H, W)) continue;
        cuda::Corners<T> c;
        cuda::corners(y, x, H, W, c);
        T v = 0;
#pragma unroll
        for (int j = 0; j < 4; ++j) {
          if (c.valid[j]) v += c.w[j] * static_cast<T>(vbase[c.idx[j] * M * D]);
        }
        acc += static_cast<T>(attn_u[l * P + p]) * v;
      }
    }
    out[e] = static_cast<scalar_t>(acc);
  }
}

template <typename scalar_t>
__global__ void ms_deform_attn_backward_kernel_impl(Dims g, const scalar_t* grad_out,
                                                    const scalar_t* value, const int64_t* shapes,
                                                    const int64_t* starts, const scalar_t* loc,
                                                    const scalar_t* attn, scalar_t* grad_value,
                                                    scalar_t* grad_loc, scalar_t* grad_attn) {
  using T = at::opmath_type<scalar_t>;
  const int64_t M = g.heads, D = g.channels, L = g.levels, P = g.points;
  const int64_t total = g.batch * g.queries * M * L * P;
  for (int64_t s = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; s < total;
       s += int64_t(blockDim.x) * gridDim.x) {
    const int64_t l = (s / P) % L, u = s / (L * P);  // s = (n, q, m, l, p), u = (n, q, m)
    const int64_t m = u % M, n = u / (M * g.queries);
    const int64_t H = shapes[2 * l], W = shapes[2 * l + 1];
    const T x = static_cast<T>(loc[2 * s]) * T(W) - T(0.5);
    const T y = static_cast<T>(loc[2 * s + 1]) * T(H) - T(0.5);
    T g_attn = 0, g_y = 0, g_x = 0;
    const T a = static_cast<T>(attn[s]);
    if (cuda::inside_plane(y, x, H, W)) {
      cuda::Corners<T> c;
      cuda::corners(y, x, H, W, c);
      const int64_t base = ((n * g.spatial + starts[l]) * M + m) * D;
      const scalar_t* go = grad_out + u * D;
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        if (!c.valid[j]) continue;
        const scalar_t* vj = value + base + c.idx[j] * M * D;
        scalar_t* gvj = grad_value + base + c.idx[j] * M * D;
        const T aw = a * c.w[j];
        T dot = 0;
        for (int64_t d = 0; d < D; ++d) {
          const T gd = static_cast<T>(go[d]);
          dot += gd * static_cast<T>(vj[d]);
          gpuAtomicAdd(gvj + d, static_cast<scalar_t>(aw * gd));
        }
        g_attn += c.w[j] * dot;
        g_y += c.wy[j] * dot;
        g_x += c.wx[j] * dot;
      }
    }
    grad_attn[s] = static_cast<scalar_t>(g_attn);
    grad_loc[2 * s] = static_cast<scalar_t>(a * g_x * T(W));
    grad_loc[2 * s + 1] = static_cast<scalar_t>(a * g_y * T(H));
  }
}

}  // namespace

template <typename scalar_t>
void ms_deform_attn_forward(const MsDeformAttnDims& g, const scalar_t* value, const int64_t* shapes,
                            const int64_t* starts, const scalar_t* loc, const scalar_t* attn,
                            scalar_t* out, cudaStream_t stream) {
  const int64_t total = g.batch * g.queries * g.heads * g.channels;
  ms_deform_attn_forward_kernel_impl<scalar_t><<<blocks_for(total), kThreads, 0, stream>>>(
      g, value, shapes, starts, loc, attn, out);
}

template <typename scalar_t>
void ms_deform_attn_backward(const MsDeformAttnDims& g, const scalar_t* grad_out, const scalar_t* value,
                             const int64_t* shapes, const int64_t* starts, const scalar_t* loc,
                             const scalar_t* attn, scalar_t* grad_value, scalar_t* grad_loc,
                             scalar_t* grad_attn, cudaStream_t stream) {
  const int64_t total = g.batch * g.queries * g.heads * g.levels * g.points;
  ms_deform_attn_backward_kernel_impl<scalar_t><<<blocks_for(total), kThreads, 0, stream>>>(
      g, grad_out, value, shapes, starts, loc, attn, grad_value, grad_loc, grad_attn);
}

#define OPMATRIX_MS_DEFORM_ATTN_INSTANTIATE(T)                                                           \
  template void ms_deform_attn_forward<T>(const MsDeformAttnDims&, const T*, const int64_t*,            \
                                          const int64_t*, const T*, const T*, T*, cudaStream_t);        \
  template void ms_deform_attn_backward<T>(const MsDeformAttnDims&, const T*, const T*, const int64_t*, \
                                           const int64_t*, const T*, const T*, T*, T*, T*, cudaStream_t);
OPMATRIX_MS_DEFORM_ATTN_INSTANTIATE(float)
OPMATRIX_MS_DEFORM_ATTN_INSTANTIATE(double)
OPMATRIX_MS_DEFORM_ATTN_INSTANTIATE(c10::Half)
OPMATRIX_MS_DEFORM_ATTN_INSTANTIATE(c10::BFloat16)

}  // namespace cuda
}  // namespace opmatrix
