// The device code of opmatrix::deform_conv2d and its backward on CUDA (tensors, GEMMs, checks
// and registration in deform_conv2d_kernel.cpp): deformable im2col into columns
// [C_in * kH * kW, H_out * W_out] per image; backward scatters into grad_input with atomics
// and reduces grad_offset / grad_mask over the channels of each offset group. Arithmetic in
// at::opmath_type (float for the 16-bit types). Index arithmetic is 32-bit whenever an image's
// tensors allow it (as torchvision's): each thread splits its flat index with several
// divisions, and 64-bit division is a long software sequence on the GPU (H100,
// bench/kernels/gpu_bench.py: 9-13 % of the forward).
// Only CUDA's and c10's scalar headers here (nms_device.cu says why).
#include <ATen/OpMathType.h>
#include <ATen/cuda/Atomic.cuh>
#include <c10/util/BFloat16.h>
#include <c10/util/Half.h>

#include <algorithm>
#include <cstdint>
#include <limits>

#include "ops/cuda/deform_conv2d_device.h"
#include "ops/cuda/zero_pad_bilinear.cuh"

namespace opmatrix {
namespace cuda {
namespace {

using Params = DeformConv2dParams;

// Sampling point (y, x) of tap k at output position p, offsets of offset group og.
template <typename index_t, typename scalar_t, typename T>
__device__ __forceinline__ void sample_point(const Params& q, const scalar_t* offset, index_t og,
                                             index_t k, index_t p, T& y, T& x) {
  const index_t kernel_w = static_cast<index_t>(q.kernel_w), out_w = static_cast<index_t>(q.out_w);
  const index_t K = static_cast<index_t>(q.kernel_h) * kernel_w;
  const index_t P = static_cast<index_t>(q.out_h) * out_w;
  const index_t ki = k / kernel_w, kj = k % kernel_w;
  const index_t oy = p / out_w, ox = p % out_w;
  y = T(oy * static_cast<index_t>(q.stride_h) - static_cast<index_t>(q.pad_h) +
        ki * static_cast<index_t>(q.dilation_h)) +
      static_cast<T>(offset[(og * 2 * K + 2 * k) * P + p]);
  x = T(ox * static_cast<index_t>(q.stride_w) - static_cast<index_t>(q.pad_w) +
        kj * static_cast<index_t>(q.dilation_w)) +
      static_cast<T>(offset[(og * 2 * K + 2 * k + 1) * P + p]);
}

// Whether every flat index of one image's input, offset, mask and columns, plus one
// grid stride, fits in int32.
bool fits_int32(const Params& q, int64_t offset_groups) {
  const int64_t K = q.kernel_h * q.kernel_w, P = q.out_h * q.out_w;
  const int64_t largest = std::max({q.in_channels * K * P, offset_groups * 2 * K * P,
                                    q.in_channels * q.in_h * q.in_w});
  return largest + int64_t(65536) * kThreads <= std::numeric_limits<int32_t>::max();
}

// Channels per im2col thread: as many as still leave about 2^20 threads to fill the GPU.
int64_t im2col_chunk(const Params& q) {
  const int64_t elements = q.in_channels * q.kernel_h * q.kernel_w * q.out_h * q.out_w;
  return std::clamp<int64_t>(elements >> 20, 1, std::max<int64_t>(q.channels_per_offset_group, 1));
}

// columns[(c*K + k)*P + p]. One thread per (offset group, chunk of `chunk` channels, tap,
// position): the sampling point and its corners are computed once and applied to every
// channel of the chunk, as the CPU kernel does for the whole offset group. One thread per
// column entry recomputed them per channel and ran the forward 1.3-1.4x slower than
// torchvision at batch 8 on an H100 (its im2col alone 2.4x torchvision's).
template <typename scalar_t, typename index_t>
__global__ void deformable_im2col_kernel(Params q, int64_t offset_groups, int64_t chunk_,
                                         const scalar_t* input, const scalar_t* offset,
                                         const scalar_t* mask, scalar_t* columns) {
  using T = at::opmath_type<scalar_t>;
  const index_t K = static_cast<index_t>(q.kernel_h * q.kernel_w);
  const index_t P = static_cast<index_t>(q.out_h * q.out_w);
  const index_t HW = static_cast<index_t>(q.in_h * q.in_w);
  const index_t cpog = static_cast<index_t>(q.channels_per_offset_group);
  const index_t chunk = static_cast<index_t>(chunk_);
  const index_t chunks = (cpog + chunk - 1) / chunk;
  const index_t total = static_cast<index_t>(offset_groups) * chunks * K * P;
  for (index_t e = index_t(blockIdx.x) * index_t(blockDim.x) + index_t(threadIdx.x); e < total;
       e += index_t(blockDim.x) * index_t(gridDim.x)) {
    const index_t p = e % P, r = e / P, k = r % K, gc = r / K;
    const index_t og = gc / chunks;
    const index_t c_begin = og * cpog + (gc % chunks) * chunk;
    const index_t c_end = min(c_begin + chunk, (og + 1) * cpog);
    scalar_t* dst = columns + (c_begin * K + k) * P + p;
    T y, x;
    sample_point(q, offset, og, k, p, y, x);
    if (!inside_plane(y, x, q.in_h, q.in_w)) {
      for (index_t c = c_begin; c < c_end; ++c, dst += K * P) *dst = scalar_t(0);
      continue;
    }
    Corners<T> s;
    corners(y, x, q.in_h, q.in_w, s);
    const T m = q.use_mask ? static_cast<T>(mask[(og * K + k) * P + p]) : T(1);
    for (index_t c = c_begin; c < c_end; ++c, dst += K * P) {
      const scalar_t* plane = input + c * HW;
      T v = 0;
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        if (s.valid[j]) v += s.w[j] * static_cast<T>(plane[s.idx[j]]);
      }
      if (q.use_mask) v *= m;
      *dst = static_cast<scalar_t>(v);
    }
  }
}

// One thread per column entry: grad_input[c, corner] += grad_columns * mask * weight.
template <typename scalar_t, typename index_t>
__global__ void deformable_col2im_kernel(Params q, const scalar_t* offset, const scalar_t* mask,
                                         const scalar_t* grad_columns, scalar_t* grad_input) {
  using T = at::opmath_type<scalar_t>;
  const index_t K = static_cast<index_t>(q.kernel_h * q.kernel_w);
  const index_t P = static_cast<index_t>(q.out_h * q.out_w);
  const index_t HW = static_cast<index_t>(q.in_h * q.in_w);
  const index_t total = static_cast<index_t>(q.in_channels) * K * P;
  const index_t cpog = static_cast<index_t>(q.channels_per_offset_group);
  for (index_t e = index_t(blockIdx.x) * index_t(blockDim.x) + index_t(threadIdx.x); e < total;
       e += index_t(blockDim.x) * index_t(gridDim.x)) {
    const index_t p = e % P, ck = e / P, k = ck % K, c = ck / K;
    const index_t og = c / cpog;
    T y, x;
    sample_point(q, offset, og, k, p, y, x);
    if (!inside_plane(y, x, q.in_h, q.in_w)) continue;
    Corners<T> s;
    corners(y, x, q.in_h, q.in_w, s);
    T g = static_cast<T>(grad_columns[e]);
    if (q.use_mask) g *= static_cast<T>(mask[(og * K + k) * P + p]);
    scalar_t* plane = grad_input + c * HW;
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      if (s.valid[j]) gpuAtomicAdd(plane + s.idx[j], static_cast<scalar_t>(g * s.w[j]));
    }
  }
}

// One thread per (offset group, tap, position): reduces over the group's channels.
template <typename scalar_t, typename index_t>
__global__ void deformable_coord_grad_kernel(Params q, int64_t offset_groups,
                                             const scalar_t* input, const scalar_t* offset,
                                             const scalar_t* mask, const scalar_t* grad_columns,
                                             scalar_t* grad_offset, scalar_t* grad_mask) {
  using T = at::opmath_type<scalar_t>;
  const index_t K = static_cast<index_t>(q.kernel_h * q.kernel_w);
  const index_t P = static_cast<index_t>(q.out_h * q.out_w);
  const index_t HW = static_cast<index_t>(q.in_h * q.in_w);
  const index_t total = static_cast<index_t>(offset_groups) * K * P;
  const index_t cpog = static_cast<index_t>(q.channels_per_offset_group);
  for (index_t e = index_t(blockIdx.x) * index_t(blockDim.x) + index_t(threadIdx.x); e < total;
       e += index_t(blockDim.x) * index_t(gridDim.x)) {
    const index_t p = e % P, gk = e / P, k = gk % K, og = gk / K;
    T y, x;
    sample_point(q, offset, og, k, p, y, x);
    T gy = 0, gx = 0, gm = 0;
    if (inside_plane(y, x, q.in_h, q.in_w)) {
      Corners<T> s;
      corners(y, x, q.in_h, q.in_w, s);
      const index_t c0 = og * cpog;
      for (index_t c = c0; c < c0 + cpog; ++c) {
        const scalar_t* plane = input + c * HW;
        const T gcol = static_cast<T>(grad_columns[(c * K + k) * P + p]);
        T val = 0, dy = 0, dx = 0;
#pragma unroll
        for (int j = 0; j < 4; ++j) {
          if (!s.valid[j]) continue;
          const T v = static_cast<T>(plane[s.idx[j]]);
          val += s.w[j] * v;
          dy += s.wy[j] * v;
          dx += s.wx[j] * v;
        }
        gm += gcol * val;
        gy += gcol * dy;
        gx += gcol * dx;
      }
    }
    const T m = q.use_mask ? static_cast<T>(mask[gk * P + p]) : T(1);
    grad_offset[(og * 2 * K + 2 * k) * P + p] = static_cast<scalar_t>(gy * m);
    grad_offset[(og * 2 * K + 2 * k + 1) * P + p] = static_cast<scalar_t>(gx * m);
    if (q.use_mask) grad_mask[gk * P + p] = static_cast<scalar_t>(gm);
  }
}

// Launches kernel<scalar_t, int32_t> where fits_int32, else kernel<scalar_t, int64_t>.
#define OPMATRIX_LAUNCH_INDEXED(kernel, i32, total, stream, ...)                              \
  do {                                                                                        \
    if (i32) {                                                                                \
      kernel<scalar_t, int32_t><<<blocks_for(total), kThreads, 0, stream>>>(__VA_ARGS__); \
    } else {                                                                                  \
      kernel<scalar_t, int64_t><<<blocks_for(total), kThreads, 0, stream>>>(__VA_ARGS__); \
    }                                                                                         \
  } while (0)

}  // namespace

template <typename scalar_t>
void deformable_im2col(const DeformConv2dParams& q, int64_t offset_groups, const scalar_t* input,
                       const scalar_t* offset, const scalar_t* mask, scalar_t* columns,
                       cudaStream_t stream) {
  const int64_t chunk = im2col_chunk(q);
  const int64_t threads = offset_groups * ((q.channels_per_offset_group + chunk - 1) / chunk) *
                          q.kernel_h * q.kernel_w * q.out_h * q.out_w;
  OPMATRIX_LAUNCH_INDEXED(deformable_im2col_kernel, fits_int32(q, offset_groups), threads, stream,
                          q, offset_groups, chunk, input, offset, mask, columns);
}

template <typename scalar_t>
void deformable_coord_grad(const DeformConv2dParams& q, int64_t offset_groups, const scalar_t* input,
                           const scalar_t* offset, const scalar_t* mask, const scalar_t* grad_columns,
                           scalar_t* grad_offset, scalar_t* grad_mask, cudaStream_t stream) {
  const int64_t total = offset_groups * q.kernel_h * q.kernel_w * q.out_h * q.out_w;
  OPMATRIX_LAUNCH_INDEXED(deformable_coord_grad_kernel, fits_int32(q, offset_groups), total, stream,
                          q, offset_groups, input, offset, mask, grad_columns, grad_offset, grad_mask);
}

template <typename scalar_t>
void deformable_col2im(const DeformConv2dParams& q, int64_t offset_groups, const scalar_t* offset,
                       const scalar_t* mask, const scalar_t* grad_columns, scalar_t* grad_input,
                       cudaStream_t stream) {
  const int64_t total = q.in_channels * q.kernel_h * q.kernel_w * q.out_h * q.out_w;
  OPMATRIX_LAUNCH_INDEXED(deformable_col2im_kernel, fits_int32(q, offset_groups), total, stream,
                          q, offset, mask, grad_columns, grad_input);
}

#define OPMATRIX_DEFORM_CONV2D_INSTANTIATE(T)                                                         \
  template void deformable_im2col<T>(const DeformConv2dParams&, int64_t, const T*, const T*, const T*, \
                                     T*, cudaStream_t);                                                \
  template void deformable_coord_grad<T>(const DeformConv2dParams&, int64_t, const T*, const T*,      \
                                         const T*, const T*, T*, T*, cudaStream_t);                    \
  template void deformable_col2im<T>(const DeformConv2dParams&, int64_t, const T*, const T*, const T*, \
                                     T*, cudaStream_t);
OPMATRIX_DEFORM_CONV2D_INSTANTIATE(float)
OPMATRIX_DEFORM_CONV2D_INSTANTIATE(double)
OPMATRIX_DEFORM_CONV2D_INSTANTIATE(c10::Half)
OPMATRIX_DEFORM_CONV2D_INSTANTIATE(c10::BFloat16)

}  // namespace cuda
}  // namespace opmatrix
