// CUDA kernels of opmatrix::ms_deform_attn and its backward (Deformable-DETR's
// multi-scale deformable attention). Forward: one thread per output element (n, q, m, d),
// so neighbouring threads read neighbouring channels of the same value pixel (coalesced).
// Backward: one thread per sample (n, q, m, l, p) looping over D; grad_value is scattered
// with atomics, grad_sampling_loc / grad_attn_weight are written directly.
// float, double, half and bfloat16 (arithmetic in at::opmath_type). Current stream.
#define TORCH_ASSERT_ONLY_METHOD_OPERATORS
#include <ATen/core/Tensor.h>
#include <ATen/Dispatch.h>
#include <ATen/OpMathType.h>
#include <ATen/cuda/Atomic.cuh>
#include <ATen/cuda/CUDAContext.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/zeros_like.h>
#include <c10/cuda/CUDAException.h>
#include <c10/cuda/CUDAGuard.h>
#include <torch/library.h>

#include <tuple>

#include "ops/cuda/zero_pad_bilinear.cuh"
#include "ops/ms_deform_attn_check.h"

namespace opmatrix {
namespace {

using ms_deform_attn_geometry::Geometry;

struct Dims {
  int64_t batch, spatial, heads, channels, queries, levels, points;
};

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

struct Inputs {
  at::Tensor value, shapes, starts, loc, attn;
};

// Index tensors may come from the CPU (as in the CPU op) or already be on the GPU (as in
// Deformable-DETR): either is accepted and moved next to value.
Inputs check_cuda(const at::Tensor& value, const at::Tensor& spatial_shapes,
                  const at::Tensor& level_start_index, const at::Tensor& sampling_loc,
                  const at::Tensor& attn_weight) {
  for (const at::Tensor* t : {&value, &sampling_loc, &attn_weight}) {
    TORCH_CHECK(t->is_cuda() && t->device() == value.device(),
                "ms_deform_attn (CUDA kernel): value, sampling_loc and attn_weight must be on the same CUDA device");
    TORCH_CHECK(t->scalar_type() == value.scalar_type(),
                "ms_deform_attn: value, sampling_loc and attn_weight must have the same dtype");
  }
  return {value.contiguous(), spatial_shapes.to(value.device()).contiguous(),
          level_start_index.to(value.device()).contiguous(), sampling_loc.contiguous(),
          attn_weight.contiguous()};
}

Dims dims_of(const Geometry& g) {
  return Dims{g.batch, g.spatial, g.heads, g.channels, g.queries, g.levels, g.points};
}

at::Tensor ms_deform_attn_forward_kernel(
    const at::Tensor& value_, const at::Tensor& spatial_shapes, const at::Tensor& level_start_index,
    const at::Tensor& sampling_loc_, const at::Tensor& attn_weight_, int64_t im2col_step) {
  const Geometry g = ms_deform_attn_geometry::check(value_, spatial_shapes, level_start_index,
                                                    sampling_loc_, attn_weight_, im2col_step);
  const auto t = check_cuda(value_, spatial_shapes, level_start_index, sampling_loc_, attn_weight_);
  const c10::cuda::CUDAGuard device_guard(t.value.device());
  at::Tensor output = at::empty({g.batch, g.queries, g.heads * g.channels}, t.value.options());
  const int64_t total = output.numel();
  if (total == 0) return output;
  cudaStream_t stream = at::cuda::getCurrentCUDAStream();
  AT_DISPATCH_FLOATING_TYPES_AND2(at::kHalf, at::kBFloat16, t.value.scalar_type(),
                                  "opmatrix::ms_deform_attn (CUDA)", [&] {
    ms_deform_attn_forward_kernel_impl<scalar_t>
        <<<cuda::blocks_for(total), cuda::kThreads, 0, stream>>>(
            dims_of(g), t.value.data_ptr<scalar_t>(), t.shapes.data_ptr<int64_t>(),
            t.starts.data_ptr<int64_t>(), t.loc.data_ptr<scalar_t>(),
            t.attn.data_ptr<scalar_t>(), output.data_ptr<scalar_t>());
    C10_CUDA_KERNEL_LAUNCH_CHECK();
  });
  return output;
}

std::tuple<at::Tensor, at::Tensor, at::Tensor> ms_deform_attn_backward_kernel(
    const at::Tensor& grad_output_, const at::Tensor& value_, const at::Tensor& spatial_shapes,
    const at::Tensor& level_start_index, const at::Tensor& sampling_loc_,
    const at::Tensor& attn_weight_, int64_t im2col_step) {
  const Geometry g = ms_deform_attn_geometry::check(value_, spatial_shapes, level_start_index,
                                                    sampling_loc_, attn_weight_, im2col_step);
  const auto t = check_cuda(value_, spatial_shapes, level_start_index, sampling_loc_, attn_weight_);
  TORCH_CHECK(grad_output_.is_cuda() && grad_output_.device() == t.value.device() &&
                  grad_output_.scalar_type() == t.value.scalar_type(),
              "ms_deform_attn backward: grad_output must be on value's device, with its dtype");
  TORCH_CHECK(grad_output_.dim() == 3 && grad_output_.size(0) == g.batch &&
                  grad_output_.size(1) == g.queries && grad_output_.size(2) == g.heads * g.channels,
              "ms_deform_attn backward: grad_output must be [N, Lq, M * D]");
  const c10::cuda::CUDAGuard device_guard(t.value.device());
  const at::Tensor grad_output = grad_output_.contiguous();
  at::Tensor grad_value = at::zeros_like(t.value);
  at::Tensor grad_loc = at::zeros_like(t.loc);
  at::Tensor grad_attn = at::zeros_like(t.attn);
  const int64_t total = t.attn.numel();
  if (total == 0 || g.channels == 0) return {grad_value, grad_loc, grad_attn};
  cudaStream_t stream = at::cuda::getCurrentCUDAStream();
  AT_DISPATCH_FLOATING_TYPES_AND2(at::kHalf, at::kBFloat16, t.value.scalar_type(),
                                  "opmatrix::_ms_deform_attn_backward (CUDA)", [&] {
    ms_deform_attn_backward_kernel_impl<scalar_t>
        <<<cuda::blocks_for(total), cuda::kThreads, 0, stream>>>(
            dims_of(g), grad_output.data_ptr<scalar_t>(), t.value.data_ptr<scalar_t>(),
            t.shapes.data_ptr<int64_t>(), t.starts.data_ptr<int64_t>(),
            t.loc.data_ptr<scalar_t>(), t.attn.data_ptr<scalar_t>(),
            grad_value.data_ptr<scalar_t>(), grad_loc.data_ptr<scalar_t>(),
            grad_attn.data_ptr<scalar_t>());
    C10_CUDA_KERNEL_LAUNCH_CHECK();
  });
  return {grad_value, grad_loc, grad_attn};
}

}  // namespace

TORCH_LIBRARY_IMPL(opmatrix, CUDA, m) {
  m.impl("ms_deform_attn", TORCH_FN(ms_deform_attn_forward_kernel));
  m.impl("_ms_deform_attn_backward", TORCH_FN(ms_deform_attn_backward_kernel));
}

}  // namespace opmatrix
