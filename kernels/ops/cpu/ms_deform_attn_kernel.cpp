// CPU kernels of opmatrix::ms_deform_attn (Deformable-DETR's multi-scale deformable
// attention) and its backward.
//
// Forward: a direct loop over (batch, query, head); for each of the L x P samples the four
// bilinear corners are weighted by (attention weight x bilinear weight) and their D-vectors
// (contiguous in value's [N, S, M, D] layout) accumulated. No im2col, no intermediate
// tensors: the PyTorch composite this replaces materialises a transposed copy of value per
// level and an [N*M, D, Lq, L*P] tensor of samples.
// Backward: parallel over (batch, head), so each task owns grad_value[n, :, m, :] and needs
// no atomics.
#define TORCH_ASSERT_ONLY_METHOD_OPERATORS
#include <ATen/core/Tensor.h>
#include <ATen/Dispatch.h>
#include <ATen/Parallel.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/zeros.h>
#include <ATen/ops/zeros_like.h>
#include <torch/library.h>

#include <tuple>
#include <vector>

#include "ops/cpu/zero_pad_bilinear.h"
#include "ops/ms_deform_attn_check.h"

namespace opmatrix {
namespace {

using ms_deform_attn_geometry::Geometry;

// acc[0:D] += w0 * v0[0:D] + ... + w3 * v3[0:D], in fixed-size blocks so that -O2 (whose
// cheap vectoriser skips loops with an unknown trip count) still emits SIMD code.
template <typename T>
inline void accumulate4(T* acc, const T* v0, const T* v1, const T* v2, const T* v3, T w0, T w1,
                        T w2, T w3, int64_t D) {
  constexpr int64_t B = 8;
  int64_t d = 0;
  for (; d + B <= D; d += B) {
    for (int64_t i = 0; i < B; ++i) {
      acc[d + i] += w0 * v0[d + i] + w1 * v1[d + i] + w2 * v2[d + i] + w3 * v3[d + i];
    }
  }
  for (; d < D; ++d) acc[d] += w0 * v0[d] + w1 * v1[d] + w2 * v2[d] + w3 * v3[d];
}

struct Levels {
  std::vector<int64_t> shapes, starts;  // host copies: [L, 2] and [L]
};

Levels host_levels(const at::Tensor& spatial_shapes, const at::Tensor& level_start_index,
                   const Geometry& g) {
  TORCH_CHECK(spatial_shapes.device().is_cpu() && level_start_index.device().is_cpu(),
              "ms_deform_attn (CPU kernel): spatial_shapes and level_start_index must be on the CPU");
  const at::Tensor shapes = spatial_shapes.contiguous(), starts = level_start_index.contiguous();
  Levels lv;
  lv.shapes.assign(shapes.data_ptr<int64_t>(), shapes.data_ptr<int64_t>() + 2 * g.levels);
  lv.starts.assign(starts.data_ptr<int64_t>(), starts.data_ptr<int64_t>() + g.levels);
  ms_deform_attn_geometry::check_levels_cpu(lv.shapes.data(), lv.starts.data(), g.levels, g.spatial);
  return lv;
}

void check_cpu_tensors(const at::Tensor& value, const at::Tensor& sampling_loc,
                       const at::Tensor& attn_weight) {
  for (const at::Tensor* t : {&value, &sampling_loc, &attn_weight}) {
    TORCH_CHECK(t->device().is_cpu(), "ms_deform_attn (CPU kernel): every tensor must be on the CPU");
    TORCH_CHECK(t->scalar_type() == value.scalar_type(),
                "ms_deform_attn: value, sampling_loc and attn_weight must have the same dtype");
  }
}

at::Tensor ms_deform_attn_forward_kernel(
    const at::Tensor& value_, const at::Tensor& spatial_shapes, const at::Tensor& level_start_index,
    const at::Tensor& sampling_loc_, const at::Tensor& attn_weight_, int64_t im2col_step) {
  const Geometry g = ms_deform_attn_geometry::check(value_, spatial_shapes, level_start_index,
                                                    sampling_loc_, attn_weight_, im2col_step);
  check_cpu_tensors(value_, sampling_loc_, attn_weight_);
  const Levels lv = host_levels(spatial_shapes, level_start_index, g);
  const at::Tensor value = value_.contiguous(), loc = sampling_loc_.contiguous(),
                   attn = attn_weight_.contiguous();
  at::Tensor output = at::empty({g.batch, g.queries, g.heads * g.channels}, value.options());
  if (output.numel() == 0) return output;

  AT_DISPATCH_FLOATING_TYPES(value.scalar_type(), "opmatrix::ms_deform_attn (CPU)", [&] {
    using T = scalar_t;
    const T* v = value.data_ptr<T>();
    const T* locs = loc.data_ptr<T>();
    const T* attns = attn.data_ptr<T>();
    T* out = output.data_ptr<T>();
    const int64_t M = g.heads, D = g.channels, L = g.levels, P = g.points, S = g.spatial;
    const int64_t pixel_stride = M * D;
    // One unit = one (n, q, m) output vector of D values.
    at::parallel_for(0, g.batch * g.queries * M, 16, [&](int64_t begin, int64_t end) {
      for (int64_t u = begin; u < end; ++u) {
        const int64_t m = u % M, n = u / (M * g.queries);
        T* acc = out + u * D;
        for (int64_t d = 0; d < D; ++d) acc[d] = T(0);
        const T* loc_u = locs + u * L * P * 2;
        const T* attn_u = attns + u * L * P;
        for (int64_t l = 0; l < L; ++l) {
          const int64_t H = lv.shapes[2 * l], W = lv.shapes[2 * l + 1];
          if (H * W == 0) continue;
          const T* vbase = v + ((n * S + lv.starts[l]) * M + m) * D;
          for (int64_t p = 0; p < P; ++p) {
            const T x = loc_u[(l * P + p) * 2] * T(W) - T(0.5);
            const T y = loc_u[(l * P + p) * 2 + 1] * T(H) - T(0.5);
            if (!cpu::inside_plane(y, x, H, W)) continue;
            cpu::BilinearCorners<T> c;
            cpu::bilinear_corners(y, x, H, W, c);
            const T a = attn_u[l * P + p];
            accumulate4(acc, vbase + c.idx[0] * pixel_stride, vbase + c.idx[1] * pixel_stride,
                        vbase + c.idx[2] * pixel_stride, vbase + c.idx[3] * pixel_stride,
                        a * c.w[0], a * c.w[1], a * c.w[2], a * c.w[3], D);
          }
        }
      }
    });
  });
  return output;
}

std::tuple<at::Tensor, at::Tensor, at::Tensor> ms_deform_attn_backward_kernel(
    const at::Tensor& grad_output_, const at::Tensor& value_, const at::Tensor& spatial_shapes,
    const at::Tensor& level_start_index, const at::Tensor& sampling_loc_,
    const at::Tensor& attn_weight_, int64_t im2col_step) {
  const Geometry g = ms_deform_attn_geometry::check(value_, spatial_shapes, level_start_index,
                                                    sampling_loc_, attn_weight_, im2col_step);
  check_cpu_tensors(value_, sampling_loc_, attn_weight_);
  TORCH_CHECK(grad_output_.device().is_cpu() && grad_output_.scalar_type() == value_.scalar_type(),
              "ms_deform_attn backward: grad_output must be a CPU tensor of value's dtype");
  TORCH_CHECK(grad_output_.dim() == 3 && grad_output_.size(0) == g.batch &&
                  grad_output_.size(1) == g.queries && grad_output_.size(2) == g.heads * g.channels,
              "ms_deform_attn backward: grad_output must be [N, Lq, M * D]");
  const Levels lv = host_levels(spatial_shapes, level_start_index, g);
  const at::Tensor value = value_.contiguous(), loc = sampling_loc_.contiguous(),
                   attn = attn_weight_.contiguous(), grad_output = grad_output_.contiguous();
  at::Tensor grad_value = at::zeros_like(value);
  at::Tensor grad_loc = at::zeros_like(loc);
  at::Tensor grad_attn = at::zeros_like(attn);
  if (grad_output.numel() == 0) return {grad_value, grad_loc, grad_attn};

  AT_DISPATCH_FLOATING_TYPES(value.scalar_type(), "opmatrix::_ms_deform_attn_backward (CPU)", [&] {
    using T = scalar_t;
    const T* v = value.data_ptr<T>();
    const T* locs = loc.data_ptr<T>();
    const T* attns = attn.data_ptr<T>();
    const T* gout = grad_output.data_ptr<T>();
    T* gv = grad_value.data_ptr<T>();
    T* gloc = grad_loc.data_ptr<T>();
    T* gattn = grad_attn.data_ptr<T>();
    const int64_t M = g.heads, D = g.channels, L = g.levels, P = g.points, S = g.spatial;
    const int64_t Lq = g.queries, pixel_stride = M * D;
    // One unit = one (n, m): it alone writes grad_value[n, :, m, :].
    at::parallel_for(0, g.batch * M, 1, [&](int64_t begin, int64_t end) {
      for (int64_t nm = begin; nm < end; ++nm) {
        const int64_t n = nm / M, m = nm % M;
        for (int64_t q = 0; q < Lq; ++q) {
          const int64_t u = (n * Lq + q) * M + m;  // (n, q, m)
          const T* go = gout + u * D;
          for (int64_t l = 0; l < L; ++l) {
            const int64_t H = lv.shapes[2 * l], W = lv.shapes[2 * l + 1];
            if (H * W == 0) continue;
            const int64_t base = ((n * S + lv.starts[l]) * M + m) * D;
            for (int64_t p = 0; p < P; ++p) {
              const int64_t s = u * L * P + l * P + p;  // (n, q, m, l, p)
              const T x = locs[2 * s] * T(W) - T(0.5);
              const T y = locs[2 * s + 1] * T(H) - T(0.5);
              if (!cpu::inside_plane(y, x, H, W)) continue;
              cpu::BilinearCornersGrad<T> c;
              cpu::bilinear_corners_grad(y, x, H, W, c);
              const T a = attns[s];
              T g_attn = 0, g_y = 0, g_x = 0;
              for (int j = 0; j < 4; ++j) {
                if (c.w[j] == T(0) && c.wy[j] == T(0) && c.wx[j] == T(0)) continue;  // outside corner
                const T* vj = v + base + c.idx[j] * pixel_stride;
                T* gvj = gv + base + c.idx[j] * pixel_stride;
                T dot = 0;
                const T aw = a * c.w[j];
                for (int64_t d = 0; d < D; ++d) {
                  dot += go[d] * vj[d];
                  gvj[d] += aw * go[d];
                }
                g_attn += c.w[j] * dot;
                g_y += c.wy[j] * dot;
                g_x += c.wx[j] * dot;
              }
              gattn[s] = g_attn;
              gloc[2 * s] = a * g_x * T(W);
              gloc[2 * s + 1] = a * g_y * T(H);
            }
          }
        }
      }
    });
  });
  return {grad_value, grad_loc, grad_attn};
}

}  // namespace

TORCH_LIBRARY_IMPL(opmatrix, CPU, m) {
  m.impl("ms_deform_attn", TORCH_FN(ms_deform_attn_forward_kernel));
  m.impl("_ms_deform_attn_backward", TORCH_FN(ms_deform_attn_backward_kernel));
}

}  // namespace opmatrix
