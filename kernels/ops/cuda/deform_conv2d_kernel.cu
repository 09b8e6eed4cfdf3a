// CUDA kernels of opmatrix::deform_conv2d and its backward: the CPU algorithm
// (ops/cpu/deform_conv2d_kernel.cpp) on the GPU — deformable im2col into columns
// [C_in * kH * kW, H_out * W_out] per image, then cuBLAS GEMMs per group (addmm / mm);
// backward scatters into grad_input with atomics and reduces grad_offset / grad_mask over
// the channels of each offset group. float, double, half and bfloat16 (arithmetic in
// at::opmath_type, i.e. float for the 16-bit types). Runs on the current stream.
// Index arithmetic is 32-bit whenever an image's tensors allow it (as torchvision's): each
// thread splits its flat index with several divisions, and 64-bit division is a long
// software sequence on the GPU (H100, bench/kernels/gpu_bench.py: 9-13 % of the forward).
#define TORCH_ASSERT_ONLY_METHOD_OPERATORS
#include <ATen/core/Tensor.h>
#include <ATen/Dispatch.h>
#include <ATen/OpMathType.h>
#include <ATen/cuda/Atomic.cuh>
#include <ATen/cuda/CUDAContext.h>
#include <ATen/ops/addmm.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/mm.h>
#include <ATen/ops/sum.h>
#include <ATen/ops/zeros_like.h>
#include <c10/cuda/CUDAException.h>
#include <c10/cuda/CUDAGuard.h>
#include <torch/library.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <tuple>

#include "ops/cuda/zero_pad_bilinear.cuh"
#include "ops/deform_conv2d_check.h"

namespace opmatrix {
namespace {

using deform_conv2d_geometry::Geometry;

struct Params {
  int64_t in_channels, in_h, in_w, kernel_h, kernel_w, out_h, out_w;
  int64_t stride_h, stride_w, pad_h, pad_w, dilation_h, dilation_w;
  int64_t channels_per_offset_group;
  bool use_mask;
};

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
  return largest + int64_t(65536) * cuda::kThreads <= std::numeric_limits<int32_t>::max();
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
    if (!cuda::inside_plane(y, x, q.in_h, q.in_w)) {
      for (index_t c = c_begin; c < c_end; ++c, dst += K * P) *dst = scalar_t(0);
      continue;
    }
    cuda::Corners<T> s;
    cuda::corners(y, x, q.in_h, q.in_w, s);
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
    if (!cuda::inside_plane(y, x, q.in_h, q.in_w)) continue;
    cuda::Corners<T> s;
    cuda::corners(y, x, q.in_h, q.in_w, s);
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
    if (cuda::inside_plane(y, x, q.in_h, q.in_w)) {
      cuda::Corners<T> s;
      cuda::corners(y, x, q.in_h, q.in_w, s);
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
      kernel<scalar_t, int32_t><<<cuda::blocks_for(total), cuda::kThreads, 0, stream>>>(__VA_ARGS__); \
    } else {                                                                                  \
      kernel<scalar_t, int64_t><<<cuda::blocks_for(total), cuda::kThreads, 0, stream>>>(__VA_ARGS__); \
    }                                                                                         \
    C10_CUDA_KERNEL_LAUNCH_CHECK();                                                           \
  } while (0)

struct Inputs {
  at::Tensor input, weight, offset, mask, bias;
};

Inputs check_cuda(const at::Tensor& input, const at::Tensor& weight, const at::Tensor& offset,
                  const at::Tensor& mask, const at::Tensor& bias, bool use_mask) {
  const auto dtype = input.scalar_type();
  for (const at::Tensor* t : {&input, &weight, &offset, &bias}) {
    TORCH_CHECK(t->is_cuda() && t->device() == input.device(),
                "deform_conv2d (CUDA kernel): every tensor must be on the same CUDA device");
    TORCH_CHECK(t->scalar_type() == dtype, "deform_conv2d: input, weight, offset, mask and bias must have the same dtype");
  }
  if (use_mask) {
    TORCH_CHECK(mask.is_cuda() && mask.device() == input.device(),
                "deform_conv2d (CUDA kernel): every tensor must be on the same CUDA device");
    TORCH_CHECK(mask.scalar_type() == dtype, "deform_conv2d: input, weight, offset, mask and bias must have the same dtype");
  }
  return {input.contiguous(), weight.contiguous(), offset.contiguous(),
          use_mask ? mask.contiguous() : mask, bias.contiguous()};
}

Params make_params(const Geometry& g, int64_t stride_h, int64_t stride_w, int64_t pad_h,
                   int64_t pad_w, int64_t dilation_h, int64_t dilation_w, int64_t offset_groups,
                   bool use_mask) {
  return Params{g.in_channels, g.in_h, g.in_w, g.kernel_h, g.kernel_w, g.out_h, g.out_w,
                stride_h, stride_w, pad_h, pad_w, dilation_h, dilation_w,
                g.in_channels / offset_groups, use_mask};
}

at::Tensor deform_conv2d_forward_kernel(
    const at::Tensor& input_, const at::Tensor& weight_, const at::Tensor& offset_,
    const at::Tensor& mask_, const at::Tensor& bias_, int64_t stride_h, int64_t stride_w,
    int64_t pad_h, int64_t pad_w, int64_t dilation_h, int64_t dilation_w, int64_t groups,
    int64_t offset_groups, bool use_mask) {
  const Geometry g = deform_conv2d_geometry::check(
      input_, weight_, offset_, mask_, bias_, stride_h, stride_w, pad_h, pad_w, dilation_h,
      dilation_w, groups, offset_groups, use_mask);
  const auto t = check_cuda(input_, weight_, offset_, mask_, bias_, use_mask);
  const c10::cuda::CUDAGuard device_guard(t.input.device());
  const Params q = make_params(g, stride_h, stride_w, pad_h, pad_w, dilation_h, dilation_w,
                               offset_groups, use_mask);
  const bool i32 = fits_int32(q, offset_groups);
  const int64_t chunk = im2col_chunk(q);
  const int64_t im2col_threads = offset_groups *
      ((q.channels_per_offset_group + chunk - 1) / chunk) * q.kernel_h * q.kernel_w * q.out_h * q.out_w;

  at::Tensor output = at::empty({g.batch, g.out_channels, g.out_h, g.out_w}, t.input.options());
  if (g.batch == 0) return output;
  const int64_t K = g.kernel_h * g.kernel_w, P = g.out_h * g.out_w, HW = g.in_h * g.in_w;
  const int64_t cin_g = g.in_channels / groups, cout_g = g.out_channels / groups;
  at::Tensor columns = at::empty({g.in_channels * K, P}, t.input.options());
  const at::Tensor weight_g = t.weight.view({groups, cout_g, cin_g * K});
  const at::Tensor columns_g = columns.view({groups, cin_g * K, P});
  const at::Tensor bias_g = t.bias.view({groups, cout_g, 1});
  cudaStream_t stream = at::cuda::getCurrentCUDAStream();

  AT_DISPATCH_FLOATING_TYPES_AND2(at::kHalf, at::kBFloat16, t.input.scalar_type(),
                                  "opmatrix::deform_conv2d (CUDA)", [&] {
    for (int64_t n = 0; n < g.batch; ++n) {
      OPMATRIX_LAUNCH_INDEXED(
          deformable_im2col_kernel, i32, im2col_threads, stream,
          q, offset_groups, chunk, t.input.data_ptr<scalar_t>() + n * g.in_channels * HW,
          t.offset.data_ptr<scalar_t>() + n * offset_groups * 2 * K * P,
          use_mask ? t.mask.data_ptr<scalar_t>() + n * offset_groups * K * P : nullptr,
          columns.data_ptr<scalar_t>());
      at::Tensor out_n = output.select(0, n).view({groups, cout_g, P});
      for (int64_t grp = 0; grp < groups; ++grp) {
        at::Tensor out_ng = out_n.select(0, grp);
        at::addmm_out(out_ng, bias_g.select(0, grp), weight_g.select(0, grp), columns_g.select(0, grp));
      }
    }
  });
  return output;
}

std::tuple<at::Tensor, at::Tensor, at::Tensor, at::Tensor, at::Tensor> deform_conv2d_backward_kernel(
    const at::Tensor& grad_, const at::Tensor& input_, const at::Tensor& weight_,
    const at::Tensor& offset_, const at::Tensor& mask_, const at::Tensor& bias_,
    int64_t stride_h, int64_t stride_w, int64_t pad_h, int64_t pad_w, int64_t dilation_h,
    int64_t dilation_w, int64_t groups, int64_t offset_groups, bool use_mask) {
  const Geometry g = deform_conv2d_geometry::check(
      input_, weight_, offset_, mask_, bias_, stride_h, stride_w, pad_h, pad_w, dilation_h,
      dilation_w, groups, offset_groups, use_mask);
  const auto t = check_cuda(input_, weight_, offset_, mask_, bias_, use_mask);
  TORCH_CHECK(grad_.is_cuda() && grad_.device() == t.input.device() &&
                  grad_.scalar_type() == t.input.scalar_type(),
              "deform_conv2d backward: grad must be on the input's device, with its dtype");
  TORCH_CHECK(grad_.dim() == 4 && grad_.size(0) == g.batch && grad_.size(1) == g.out_channels &&
                  grad_.size(2) == g.out_h && grad_.size(3) == g.out_w,
              "deform_conv2d backward: grad must have the output's shape");
  const c10::cuda::CUDAGuard device_guard(t.input.device());
  const Params q = make_params(g, stride_h, stride_w, pad_h, pad_w, dilation_h, dilation_w,
                               offset_groups, use_mask);
  const bool i32 = fits_int32(q, offset_groups);
  const int64_t chunk = im2col_chunk(q);
  const int64_t im2col_threads = offset_groups *
      ((q.channels_per_offset_group + chunk - 1) / chunk) * q.kernel_h * q.kernel_w * q.out_h * q.out_w;
  const at::Tensor grad = grad_.contiguous();

  at::Tensor grad_input = at::zeros_like(t.input);
  at::Tensor grad_weight = at::zeros_like(t.weight);
  at::Tensor grad_offset = at::zeros_like(t.offset);
  at::Tensor grad_mask = at::zeros_like(t.mask);
  at::Tensor grad_bias = at::sum(grad, {0, 2, 3});
  if (g.batch == 0) return {grad_input, grad_weight, grad_offset, grad_mask, grad_bias};

  const int64_t K = g.kernel_h * g.kernel_w, P = g.out_h * g.out_w, HW = g.in_h * g.in_w;
  const int64_t cin_g = g.in_channels / groups, cout_g = g.out_channels / groups;
  at::Tensor columns = at::empty({g.in_channels * K, P}, t.input.options());
  at::Tensor grad_columns = at::empty({g.in_channels * K, P}, t.input.options());
  const at::Tensor weight_g = t.weight.view({groups, cout_g, cin_g * K});
  at::Tensor grad_weight_g = grad_weight.view({groups, cout_g, cin_g * K});
  const at::Tensor columns_g = columns.view({groups, cin_g * K, P});
  at::Tensor grad_columns_g = grad_columns.view({groups, cin_g * K, P});
  cudaStream_t stream = at::cuda::getCurrentCUDAStream();

  AT_DISPATCH_FLOATING_TYPES_AND2(at::kHalf, at::kBFloat16, t.input.scalar_type(),
                                  "opmatrix::_deform_conv2d_backward (CUDA)", [&] {
    for (int64_t n = 0; n < g.batch; ++n) {
      const scalar_t* input = t.input.data_ptr<scalar_t>() + n * g.in_channels * HW;
      const scalar_t* offset = t.offset.data_ptr<scalar_t>() + n * offset_groups * 2 * K * P;
      const scalar_t* mask = use_mask ? t.mask.data_ptr<scalar_t>() + n * offset_groups * K * P : nullptr;
      const int64_t total = g.in_channels * K * P;
      OPMATRIX_LAUNCH_INDEXED(deformable_im2col_kernel, i32, im2col_threads, stream,
                              q, offset_groups, chunk, input, offset, mask,
                              columns.data_ptr<scalar_t>());
      const at::Tensor grad_n = grad.select(0, n).view({groups, cout_g, P});
      for (int64_t grp = 0; grp < groups; ++grp) {
        const at::Tensor go = grad_n.select(0, grp);
        at::Tensor gw = grad_weight_g.select(0, grp);
        gw.addmm_(go, columns_g.select(0, grp).t());
        at::Tensor gc = grad_columns_g.select(0, grp);
        at::mm_out(gc, weight_g.select(0, grp).t(), go);
      }
      const int64_t coord_total = offset_groups * K * P;
      OPMATRIX_LAUNCH_INDEXED(
          deformable_coord_grad_kernel, i32, coord_total, stream,
          q, offset_groups, input, offset, mask, grad_columns.data_ptr<scalar_t>(),
          grad_offset.data_ptr<scalar_t>() + n * offset_groups * 2 * K * P,
          use_mask ? grad_mask.data_ptr<scalar_t>() + n * offset_groups * K * P : nullptr);
      OPMATRIX_LAUNCH_INDEXED(deformable_col2im_kernel, i32, total, stream,
                              q, offset, mask, grad_columns.data_ptr<scalar_t>(),
                              grad_input.data_ptr<scalar_t>() + n * g.in_channels * HW);
    }
  });
  return {grad_input, grad_weight, grad_offset, grad_mask, grad_bias};
}

}  // namespace

TORCH_LIBRARY_IMPL(opmatrix, CUDA, m) {
  m.impl("deform_conv2d", TORCH_FN(deform_conv2d_forward_kernel));
  m.impl("_deform_conv2d_backward", TORCH_FN(deform_conv2d_backward_kernel));
}

}  // namespace opmatrix
