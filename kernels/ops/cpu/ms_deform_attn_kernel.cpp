// CPU kernels of opmatrix::ms_deform_attn (Deformable-DETR's multi-scale deformable
// attention) and its backward.
//
// Forward: a direct loop over (batch, head, query); for each of the L x P samples the four
// bilinear corners are weighted by (attention weight x bilinear weight) and their D-vectors
// (contiguous in value's [N, S, M, D] layout) accumulated. No im2col, no intermediate
// tensors: the PyTorch composite this replaces materialises a transposed copy of value per
// level and an [N*M, D, Lq, L*P] tensor of samples.
// Backward: parallel over (batch, head), so each task owns grad_value[n, :, m, :] and needs
// no atomics.
#define TORCH_ASSERT_ONLY_METHOD_OPERATORS

#include <algorithm>
#include <tuple>
#include <vector>

#include "ops/cpu/simd.h"
#include "ops/cpu/zero_pad_bilinear.h"
#include "ops/ms_deform_attn_check.h"
#include "ops/tensor_api.h"

namespace opmatrix {
namespace {

using ms_deform_attn_geometry::Geometry;

struct Levels {
  std::vector<int64_t> shapes, starts;  // host copies: [L, 2] and [L]
};

template <typename T>
struct ForwardArgs {
  const T* value;  // [N, S, M, D]
  const T* loc;    // [N, Lq, M, L, P, 2]
  const T* attn;   // [N, Lq, M, L, P]
  T* out;          // [N, Lq, M, D]
  const int64_t* shapes;
  const int64_t* starts;
  int64_t batch, spatial, heads, channels, queries, levels, points;
};

// Queries per work unit. Units run head-major, (n, m, query block): one head's slice of
// value (S pixels x D channels, strided by M * D) stays hot in cache while its queries are
// served, where query-major order would stream all of value for every query.
constexpr int64_t kQueryBlock = 64;

// Work units [begin, end). kD > 0: D known at compile time, so the accumulator lives in
// registers and the D loop is fully vectorised; kD == 0: any D, accumulating in `out`.
template <typename T, int64_t kD>
OPMATRIX_ALWAYS_INLINE void forward_units(const ForwardArgs<T>& a, int64_t begin, int64_t end) {
  const int64_t M = a.heads, D = kD > 0 ? kD : a.channels, L = a.levels, P = a.points;
  const int64_t pixel_stride = M * D;
  const int64_t qblocks = (a.queries + kQueryBlock - 1) / kQueryBlock;
  for (int64_t unit = begin; unit < end; ++unit) {
    const int64_t qb = unit % qblocks, nm = unit / qblocks;
    const int64_t m = nm % M, n = nm / M;
    const int64_t q_end = std::min(a.queries, (qb + 1) * kQueryBlock);
    for (int64_t q = qb * kQueryBlock; q < q_end; ++q) {
      const int64_t u = (n * a.queries + q) * M + m;  // (n, q, m)
      T acc_regs[kD > 0 ? kD : 1] = {};
      T* acc = kD > 0 ? acc_regs : a.out + u * D;
      if (kD == 0) {
        for (int64_t d = 0; d < D; ++d) acc[d] = T(0);
      }
      const T* loc_u = a.loc + u * L * P * 2;
      const T* attn_u = a.attn + u * L * P;
      for (int64_t l = 0; l < L; ++l) {
        const int64_t H = a.shapes[2 * l], W = a.shapes[2 * l + 1];
        if (H * W == 0) continue;
        const T* vbase = a.value + ((n * a.spatial + a.starts[l]) * M + m) * D;
        for (int64_t p = 0; p < P; ++p) {
          const T x = loc_u[(l * P + p) * 2] * T(W) - T(0.5);
          const T y = loc_u[(l * P + p) * 2 + 1] * T(H) - T(0.5);
          if (!cpu::inside_plane(y, x, H, W)) continue;
          cpu::BilinearCorners<T> c;
          cpu::bilinear_corners(y, x, H, W, c);
          const T w = attn_u[l * P + p];
          const T w0 = w * c.w[0], w1 = w * c.w[1], w2 = w * c.w[2], w3 = w * c.w[3];
          const T* v0 = vbase + c.idx[0] * pixel_stride;
          const T* v1 = vbase + c.idx[1] * pixel_stride;
          const T* v2 = vbase + c.idx[2] * pixel_stride;
          const T* v3 = vbase + c.idx[3] * pixel_stride;
          for (int64_t d = 0; d < D; ++d) acc[d] += w0 * v0[d] + w1 * v1[d] + w2 * v2[d] + w3 * v3[d];
        }
      }
      if (kD > 0) {
        T* dst = a.out + u * D;
        for (int64_t d = 0; d < D; ++d) dst[d] = acc[d];
      }
    }
  }
}

template <typename T>
using ForwardFn = void (*)(const ForwardArgs<T>&, int64_t, int64_t);

template <typename T, int64_t kD>
void forward_units_baseline(const ForwardArgs<T>& a, int64_t begin, int64_t end) {
  forward_units<T, kD>(a, begin, end);
}

// The same loop compiled for AVX2+FMA and AVX-512, chosen at run time: the library is
// built for the baseline ISA (it must load on any x86-64), but the D loop is the whole
// cost and widens cleanly.
#if defined(__x86_64__) && defined(__GNUC__)
#define OPMATRIX_X86_CLONES 1
template <typename T, int64_t kD>
__attribute__((target("avx2,fma"))) void forward_units_avx2(const ForwardArgs<T>& a, int64_t begin,
                                                            int64_t end) {
  forward_units<T, kD>(a, begin, end);
}
template <typename T, int64_t kD>
__attribute__((target("avx512f,avx2,fma"))) void forward_units_avx512(const ForwardArgs<T>& a,
                                                                      int64_t begin, int64_t end) {
  forward_units<T, kD>(a, begin, end);
}
#endif

template <typename T, int64_t kD>
ForwardFn<T> pick_isa() {
#ifdef OPMATRIX_X86_CLONES
  if (__builtin_cpu_supports("avx512f")) return &forward_units_avx512<T, kD>;
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return &forward_units_avx2<T, kD>;
#endif
  return &forward_units_baseline<T, kD>;
}

// Deformable-DETR's D is d_model / heads: 32 (256 / 8) almost always.
template <typename T>
ForwardFn<T> pick_forward(int64_t D) {
  switch (D) {
    case 16: return pick_isa<T, 16>();
    case 32: return pick_isa<T, 32>();
    case 64: return pick_isa<T, 64>();
    default: return pick_isa<T, 0>();
  }
}

Levels host_levels(const api::Tensor& spatial_shapes, const api::Tensor& level_start_index,
                   const Geometry& g) {
  OPMATRIX_CHECK(spatial_shapes.is_cpu() && level_start_index.is_cpu(),
              "ms_deform_attn (CPU kernel): spatial_shapes and level_start_index must be on the CPU");
  const api::Tensor shapes = api::contiguous(spatial_shapes), starts = api::contiguous(level_start_index);
  Levels lv;
  lv.shapes.assign(api::data<int64_t>(shapes), api::data<int64_t>(shapes) + 2 * g.levels);
  lv.starts.assign(api::data<int64_t>(starts), api::data<int64_t>(starts) + g.levels);
  ms_deform_attn_geometry::check_levels_cpu(lv.shapes.data(), lv.starts.data(), g.levels, g.spatial);
  return lv;
}

void check_cpu_tensors(const api::Tensor& value, const api::Tensor& sampling_loc,
                       const api::Tensor& attn_weight) {
  for (const api::Tensor* t : {&value, &sampling_loc, &attn_weight}) {
    OPMATRIX_CHECK(t->is_cpu(), "ms_deform_attn (CPU kernel): every tensor must be on the CPU");
    OPMATRIX_CHECK(t->scalar_type() == value.scalar_type(),
                "ms_deform_attn: value, sampling_loc and attn_weight must have the same dtype");
  }
}

api::Tensor ms_deform_attn_forward_kernel(
    const api::Tensor& value_, const api::Tensor& spatial_shapes, const api::Tensor& level_start_index,
    const api::Tensor& sampling_loc_, const api::Tensor& attn_weight_, int64_t im2col_step) {
  const Geometry g = ms_deform_attn_geometry::check(value_, spatial_shapes, level_start_index,
                                                    sampling_loc_, attn_weight_, im2col_step);
  check_cpu_tensors(value_, sampling_loc_, attn_weight_);
  const Levels lv = host_levels(spatial_shapes, level_start_index, g);
  const api::Tensor value = api::contiguous(value_), loc = api::contiguous(sampling_loc_),
                   attn = api::contiguous(attn_weight_);
  api::Tensor output = ms_deform_attn_geometry::empty_output(g, value);
  if (output.numel() == 0) return output;

  api::dispatch_floating(value.scalar_type(), "opmatrix::ms_deform_attn (CPU)", [&](auto tag) {
    using scalar_t = decltype(tag);
    using T = scalar_t;
    const ForwardArgs<T> args{api::data<T>(value), api::data<T>(loc), api::data<T>(attn),
                              api::data<T>(output), lv.shapes.data(), lv.starts.data(),
                              g.batch, g.spatial, g.heads, g.channels, g.queries, g.levels,
                              g.points};
    const ForwardFn<T> kernel = pick_forward<T>(g.channels);
    const int64_t units = g.batch * g.heads * ((g.queries + kQueryBlock - 1) / kQueryBlock);
    api::parallel_for(0, units, 1, [&](int64_t begin, int64_t end) { kernel(args, begin, end); });
  });
  return output;
}

std::tuple<api::Tensor, api::Tensor, api::Tensor> ms_deform_attn_backward_kernel(
    const api::Tensor& grad_output_, const api::Tensor& value_, const api::Tensor& spatial_shapes,
    const api::Tensor& level_start_index, const api::Tensor& sampling_loc_,
    const api::Tensor& attn_weight_, int64_t im2col_step) {
  const Geometry g = ms_deform_attn_geometry::check(value_, spatial_shapes, level_start_index,
                                                    sampling_loc_, attn_weight_, im2col_step);
  check_cpu_tensors(value_, sampling_loc_, attn_weight_);
  OPMATRIX_CHECK(grad_output_.is_cpu() && grad_output_.scalar_type() == value_.scalar_type(),
              "ms_deform_attn backward: grad_output must be a CPU tensor of value's dtype");
  ms_deform_attn_geometry::check_grad_output(g, grad_output_);
  const Levels lv = host_levels(spatial_shapes, level_start_index, g);
  const api::Tensor value = api::contiguous(value_), loc = api::contiguous(sampling_loc_),
                   attn = api::contiguous(attn_weight_), grad_output = api::contiguous(grad_output_);
  api::Tensor grad_value = api::zeros_like(value);
  api::Tensor grad_loc = api::zeros_like(loc);
  api::Tensor grad_attn = api::zeros_like(attn);
  if (grad_output.numel() == 0) return {grad_value, grad_loc, grad_attn};

  api::dispatch_floating(value.scalar_type(), "opmatrix::_ms_deform_attn_backward (CPU)", [&](auto tag) {
    using scalar_t = decltype(tag);
    using T = scalar_t;
    const T* v = api::data<T>(value);
    const T* locs = api::data<T>(loc);
    const T* attns = api::data<T>(attn);
    const T* gout = api::data<T>(grad_output);
    T* gv = api::data<T>(grad_value);
    T* gloc = api::data<T>(grad_loc);
    T* gattn = api::data<T>(grad_attn);
    const int64_t M = g.heads, D = g.channels, L = g.levels, P = g.points, S = g.spatial;
    const int64_t Lq = g.queries, pixel_stride = M * D;
    // One unit = one (n, m): it alone writes grad_value[n, :, m, :].
    api::parallel_for(0, g.batch * M, 1, [&](int64_t begin, int64_t end) {
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

OPMATRIX_LIBRARY_IMPL(CPU, m) {
  m.impl("ms_deform_attn", OPMATRIX_KERNEL(ms_deform_attn_forward_kernel));
  m.impl("_ms_deform_attn_backward", OPMATRIX_KERNEL(ms_deform_attn_backward_kernel));
}

}  // namespace opmatrix
