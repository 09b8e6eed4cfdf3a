// CPU kernels of opmatrix::deform_conv2d and its backward.
//
// Forward = deformable im2col (bilinear samples at the offset positions, times the mask)
// into columns [C_in * kH * kW, H_out * W_out] per image, then the grouped GEMM
// weight [C_out, C_in/groups * kH * kW] x columns, bias folded in. Unlike torchvision's CPU
// kernel, the bilinear corners and weights of a sampling point are computed once per
// (offset group, tap, output position) and reused for every channel of the offset group,
// and the im2col runs on all threads.
// The GEMM: for float, where torch has oneDNN, it runs as a 1x1 oneDNN convolution over
// a chunk of images (columns viewed as [B, C_in*kH*kW, H_out, W_out]) — JIT-compiled SIMD
// kernels, where at::addmm goes to whatever BLAS the cell's torch links (Debian's torch:
// reference netlib BLAS, ~15x slower). Otherwise one GEMM per image and group: torch's addmm
// where torch has MKL, else our blocked product (ops/cpu/gemm.cpp).
#define TORCH_ASSERT_ONLY_METHOD_OPERATORS
#ifndef OPMATRIX_STABLE_ABI
#include <ATen/Config.h>
#include <ATen/Context.h>
#include <ATen/ops/mkldnn_convolution.h>
#define OPMATRIX_HAS_ONEDNN AT_MKLDNN_ENABLED()
#else
#define OPMATRIX_HAS_ONEDNN 0  // the stable ABI has no oneDNN entry: the GEMM path runs
#endif

#include <algorithm>
#include <tuple>
#include <vector>

#include "ops/cpu/gemm.h"
#include "ops/cpu/zero_pad_bilinear.h"
#include "ops/deform_conv2d_check.h"
#include "ops/tensor_api.h"

namespace opmatrix {
namespace {

using deform_conv2d_geometry::Geometry;

// Output positions handled together: one tile's corner table stays in L1 while it is
// applied to every channel of the offset group.
constexpr int64_t kTile = 64;

struct Params {
  int64_t stride_h, stride_w, pad_h, pad_w, dilation_h, dilation_w, groups, offset_groups;
  bool use_mask;
};

// Sampling point of tap k (row ki, column kj) for output position p, before the corners.
template <typename T>
inline void sample_point(const Geometry& g, const Params& q, int64_t k, int64_t p,
                         const T* offset_y, const T* offset_x, T& y, T& x) {
  const int64_t ki = k / g.kernel_w, kj = k % g.kernel_w;
  const int64_t oy = p / g.out_w, ox = p % g.out_w;
  y = T(oy * q.stride_h - q.pad_h + ki * q.dilation_h) + offset_y[p];
  x = T(ox * q.stride_w - q.pad_w + kj * q.dilation_w) + offset_x[p];
}

// columns[(c * K + k) * P + p] = mask * bilinear(input[c], sampling point (k, p)).
template <typename T>
void deformable_im2col(const Geometry& g, const Params& q, const T* input, const T* offset,
                       const T* mask, T* columns) {
  const int64_t K = g.kernel_h * g.kernel_w, P = g.out_h * g.out_w, HW = g.in_h * g.in_w;
  const int64_t channels_per_group = g.in_channels / q.offset_groups;
  if (HW == 0) {  // every sample is padding
    std::fill(columns, columns + g.in_channels * K * P, T(0));
    return;
  }
  const int64_t tiles = (P + kTile - 1) / kTile;
  api::parallel_for(0, q.offset_groups * K * tiles, 1, [&](int64_t begin, int64_t end) {
    cpu::BilinearCorners<T> corners[kTile];
    for (int64_t unit = begin; unit < end; ++unit) {
      const int64_t tile = unit % tiles, gk = unit / tiles;
      const int64_t og = gk / K, k = gk % K;
      const int64_t p0 = tile * kTile, np = std::min(kTile, P - p0);
      const T* offset_y = offset + (og * 2 * K + 2 * k) * P;
      const T* offset_x = offset_y + P;
      const T* m = q.use_mask ? mask + (og * K + k) * P : nullptr;
      for (int64_t i = 0; i < np; ++i) {
        T y, x;
        sample_point(g, q, k, p0 + i, offset_y, offset_x, y, x);
        cpu::bilinear_corners(y, x, g.in_h, g.in_w, corners[i]);
        if (m) {
          for (int j = 0; j < 4; ++j) corners[i].w[j] *= m[p0 + i];
        }
      }
      for (int64_t c = og * channels_per_group; c < (og + 1) * channels_per_group; ++c) {
        const T* plane = input + c * HW;
        T* dst = columns + (c * K + k) * P + p0;
        for (int64_t i = 0; i < np; ++i) {
          const auto& s = corners[i];
          dst[i] = s.w[0] * plane[s.idx[0]] + s.w[1] * plane[s.idx[1]] +
                   s.w[2] * plane[s.idx[2]] + s.w[3] * plane[s.idx[3]];
        }
      }
    }
  });
}

// oneDNN for the forward GEMM: float only (what oneDNN's convolution takes on every
// torch), when torch has it and the user has not switched it off
// (torch.backends.mkldnn.enabled = False).
bool use_onednn_gemm(const api::Tensor& input) {
#if OPMATRIX_HAS_ONEDNN
  return input.scalar_type() == api::kFloat && at::globalContext().userEnabledMkldnn();
#else
  (void)input;
  return false;
#endif
}

// Otherwise: where torch multiplies through MKL, its addmm is the faster GEMM; elsewhere
// (Debian's torch links the reference netlib BLAS) our blocked product is ~10x faster.
bool use_own_gemm() {
#ifdef OPMATRIX_STABLE_ABI
  return false;  // no way to ask the stable ABI which BLAS torch has: keep torch's
#else
  return !at::hasMKL();
#endif
}

// columns [B, C_in*K, H_out, W_out] (1x1 conv input) -> [B, C_out, H_out, W_out].
api::Tensor onednn_gemm(const api::Tensor& columns, const api::Tensor& weight_1x1,
                       const api::Tensor& bias, int64_t groups) {
#if OPMATRIX_HAS_ONEDNN
  return at::mkldnn_convolution(columns, weight_1x1, bias, {0, 0}, {1, 1}, {1, 1}, groups);
#else
  (void)columns; (void)weight_1x1; (void)bias; (void)groups;
  OPMATRIX_CHECK(false, "opmatrix::deform_conv2d: torch built without oneDNN");
#endif
}

struct Contiguous {
  api::Tensor input, weight, offset, mask, bias;
};

Contiguous check_cpu(const api::Tensor& input, const api::Tensor& weight, const api::Tensor& offset,
                     const api::Tensor& mask, const api::Tensor& bias, bool use_mask) {
  const auto dtype = input.scalar_type();
  for (const api::Tensor* t : {&input, &weight, &offset, &bias}) {
    OPMATRIX_CHECK(t->is_cpu(), "deform_conv2d (CPU kernel): every tensor must be on the CPU");
    OPMATRIX_CHECK(t->scalar_type() == dtype, "deform_conv2d: input, weight, offset, mask and bias must have the same dtype");
  }
  if (use_mask) {
    OPMATRIX_CHECK(mask.is_cpu(), "deform_conv2d (CPU kernel): every tensor must be on the CPU");
    OPMATRIX_CHECK(mask.scalar_type() == dtype, "deform_conv2d: input, weight, offset, mask and bias must have the same dtype");
  }
  return {api::contiguous(input), api::contiguous(weight), api::contiguous(offset),
          use_mask ? api::contiguous(mask) : mask, api::contiguous(bias)};
}

api::Tensor deform_conv2d_forward_kernel(
    const api::Tensor& input_, const api::Tensor& weight_, const api::Tensor& offset_,
    const api::Tensor& mask_, const api::Tensor& bias_, int64_t stride_h, int64_t stride_w,
    int64_t pad_h, int64_t pad_w, int64_t dilation_h, int64_t dilation_w, int64_t groups,
    int64_t offset_groups, bool use_mask) {
  const Geometry g = deform_conv2d_geometry::check(
      input_, weight_, offset_, mask_, bias_, stride_h, stride_w, pad_h, pad_w, dilation_h,
      dilation_w, groups, offset_groups, use_mask);
  const Params q{stride_h, stride_w, pad_h, pad_w, dilation_h, dilation_w, groups, offset_groups, use_mask};
  const auto t = check_cpu(input_, weight_, offset_, mask_, bias_, use_mask);

  api::Tensor output = api::empty({g.batch, g.out_channels, g.out_h, g.out_w}, t.input);
  if (g.batch == 0) return output;

  const int64_t K = g.kernel_h * g.kernel_w, P = g.out_h * g.out_w;
  const int64_t cin_g = g.in_channels / groups, cout_g = g.out_channels / groups;
  const int64_t in_stride = g.in_channels * g.in_h * g.in_w;

  if (use_onednn_gemm(t.input)) {
    // Images per chunk: columns of at most ~64 MiB, at least one image.
    const int64_t per_image = g.in_channels * K * P;
    const int64_t chunk = std::max<int64_t>(1, std::min<int64_t>(g.batch, (int64_t(16) << 20) / per_image));
    api::Tensor columns = api::empty({chunk, g.in_channels * K, g.out_h, g.out_w}, t.input);
    const api::Tensor weight_1x1 = api::view(t.weight, {g.out_channels, cin_g * K, 1, 1});
    for (int64_t n0 = 0; n0 < g.batch; n0 += chunk) {
      const int64_t b = std::min(chunk, g.batch - n0);
      for (int64_t i = 0; i < b; ++i) {
        const int64_t n = n0 + i;
        deformable_im2col<float>(g, q, api::data<float>(t.input) + n * in_stride,
                                 api::data<float>(t.offset) + n * offset_groups * 2 * K * P,
                                 use_mask ? api::data<float>(t.mask) + n * offset_groups * K * P : nullptr,
                                 api::data<float>(columns) + i * per_image);
      }
      api::copy_(api::narrow(output, 0, n0, b), onednn_gemm(api::narrow(columns, 0, 0, b), weight_1x1, t.bias, groups));
    }
    return output;
  }

  api::Tensor columns = api::empty({g.in_channels * K, P}, t.input);
  const api::Tensor weight_g = api::view(t.weight, {groups, cout_g, cin_g * K});
  const api::Tensor columns_g = api::view(columns, {groups, cin_g * K, P});
  const api::Tensor bias_g = api::view(t.bias, {groups, cout_g, 1});

  const bool own_gemm = use_own_gemm();
  api::dispatch_floating(t.input.scalar_type(), "opmatrix::deform_conv2d (CPU)", [&](auto tag) {
    using scalar_t = decltype(tag);
    for (int64_t n = 0; n < g.batch; ++n) {
      deformable_im2col<scalar_t>(
          g, q, api::data<scalar_t>(t.input) + n * in_stride,
          api::data<scalar_t>(t.offset) + n * offset_groups * 2 * K * P,
          use_mask ? api::data<scalar_t>(t.mask) + n * offset_groups * K * P : nullptr,
          api::data<scalar_t>(columns));
      api::Tensor out_n = api::view(api::select(output, 0, n), {groups, cout_g, P});
      for (int64_t grp = 0; grp < groups; ++grp) {
        if (own_gemm) {
          cpu::gemm_bias(cout_g, P, cin_g * K, api::data<scalar_t>(t.weight) + grp * cout_g * cin_g * K,
                         api::data<scalar_t>(columns) + grp * cin_g * K * P,
                         api::data<scalar_t>(t.bias) + grp * cout_g,
                         api::data<scalar_t>(output) + (n * groups + grp) * cout_g * P);
          continue;
        }
        api::Tensor out_ng = api::select(out_n, 0, grp);
        api::addmm_out<scalar_t>(out_ng, api::select(bias_g, 0, grp), api::select(weight_g, 0, grp), api::select(columns_g, 0, grp));
      }
    }
  });
  return output;
}

// Backward, per image:
//  1. corner table of every (offset group, tap, position): indices, weights, their
//     derivatives, and the mask;
//  2. columns from the table -> grad_weight += grad_out_g @ columns_g^T;
//  3. grad_columns = weight_g^T @ grad_out_g;
//  4. grad_offset / grad_mask per table entry, reducing over the offset group's channels
//     (parallel over entries);
//  5. grad_input scattered from grad_columns (parallel over channels: each writes its own plane).
template <typename T>
struct TapSample : cpu::BilinearCornersGrad<T> {
  T mask;
};

std::tuple<api::Tensor, api::Tensor, api::Tensor, api::Tensor, api::Tensor> deform_conv2d_backward_kernel(
    const api::Tensor& grad_, const api::Tensor& input_, const api::Tensor& weight_,
    const api::Tensor& offset_, const api::Tensor& mask_, const api::Tensor& bias_,
    int64_t stride_h, int64_t stride_w, int64_t pad_h, int64_t pad_w, int64_t dilation_h,
    int64_t dilation_w, int64_t groups, int64_t offset_groups, bool use_mask) {
  const Geometry g = deform_conv2d_geometry::check(
      input_, weight_, offset_, mask_, bias_, stride_h, stride_w, pad_h, pad_w, dilation_h,
      dilation_w, groups, offset_groups, use_mask);
  const Params q{stride_h, stride_w, pad_h, pad_w, dilation_h, dilation_w, groups, offset_groups, use_mask};
  const auto t = check_cpu(input_, weight_, offset_, mask_, bias_, use_mask);
  OPMATRIX_CHECK(grad_.is_cpu() && grad_.scalar_type() == t.input.scalar_type(),
              "deform_conv2d backward: grad must be a CPU tensor of the input's dtype");
  OPMATRIX_CHECK(grad_.dim() == 4 && grad_.size(0) == g.batch && grad_.size(1) == g.out_channels &&
                  grad_.size(2) == g.out_h && grad_.size(3) == g.out_w,
              "deform_conv2d backward: grad must have the output's shape");
  const api::Tensor grad = api::contiguous(grad_);

  api::Tensor grad_input = api::zeros_like(t.input);
  api::Tensor grad_weight = api::zeros_like(t.weight);
  api::Tensor grad_offset = api::zeros_like(t.offset);
  api::Tensor grad_mask = api::zeros_like(t.mask);
  api::Tensor grad_bias = api::sum_to_channels(grad);
  if (g.batch == 0 || g.in_h * g.in_w == 0) {
    return {grad_input, grad_weight, grad_offset, grad_mask, grad_bias};
  }

  const int64_t K = g.kernel_h * g.kernel_w, P = g.out_h * g.out_w, HW = g.in_h * g.in_w;
  const int64_t cin_g = g.in_channels / groups, cout_g = g.out_channels / groups;
  const int64_t channels_per_og = g.in_channels / offset_groups;
  api::Tensor columns = api::empty({g.in_channels * K, P}, t.input);
  api::Tensor grad_columns = api::empty({g.in_channels * K, P}, t.input);
  const api::Tensor weight_g = api::view(t.weight, {groups, cout_g, cin_g * K});
  api::Tensor grad_weight_g = api::view(grad_weight, {groups, cout_g, cin_g * K});
  const api::Tensor columns_g = api::view(columns, {groups, cin_g * K, P});
  api::Tensor grad_columns_g = api::view(grad_columns, {groups, cin_g * K, P});

  api::dispatch_floating(t.input.scalar_type(), "opmatrix::_deform_conv2d_backward (CPU)", [&](auto tag) {
    using scalar_t = decltype(tag);
    using T = scalar_t;
    std::vector<TapSample<T>> table(static_cast<size_t>(offset_groups * K * P));
    for (int64_t n = 0; n < g.batch; ++n) {
      const T* input = api::data<T>(t.input) + n * g.in_channels * HW;
      const T* offset = api::data<T>(t.offset) + n * offset_groups * 2 * K * P;
      const T* mask = use_mask ? api::data<T>(t.mask) + n * offset_groups * K * P : nullptr;
      T* g_input = api::data<T>(grad_input) + n * g.in_channels * HW;
      T* g_offset = api::data<T>(grad_offset) + n * offset_groups * 2 * K * P;
      T* g_mask = use_mask ? api::data<T>(grad_mask) + n * offset_groups * K * P : nullptr;

      // 1. table
      api::parallel_for(0, offset_groups * K * P, 256, [&](int64_t begin, int64_t end) {
        for (int64_t e = begin; e < end; ++e) {
          const int64_t p = e % P, gk = e / P, og = gk / K, k = gk % K;
          const T* offset_y = offset + (og * 2 * K + 2 * k) * P;
          T y, x;
          sample_point(g, q, k, p, offset_y, offset_y + P, y, x);
          cpu::bilinear_corners_grad(y, x, g.in_h, g.in_w, table[e]);
          table[e].mask = mask ? mask[gk * P + p] : T(1);
        }
      });
      // 2. columns (masked samples)
      T* cols = api::data<T>(columns);
      api::parallel_for(0, g.in_channels * K, 1, [&](int64_t begin, int64_t end) {
        for (int64_t row = begin; row < end; ++row) {
          const int64_t c = row / K, k = row % K, og = c / channels_per_og;
          const T* plane = input + c * HW;
          const TapSample<T>* s = table.data() + (og * K + k) * P;
          T* dst = cols + row * P;
          for (int64_t p = 0; p < P; ++p) {
            dst[p] = s[p].mask * (s[p].w[0] * plane[s[p].idx[0]] + s[p].w[1] * plane[s[p].idx[1]] +
                                  s[p].w[2] * plane[s[p].idx[2]] + s[p].w[3] * plane[s[p].idx[3]]);
          }
        }
      });
      // 2.-3. GEMMs
      const api::Tensor grad_n = api::view(api::select(grad, 0, n), {groups, cout_g, P});
      for (int64_t grp = 0; grp < groups; ++grp) {
        const api::Tensor go = api::select(grad_n, 0, grp);
        api::Tensor gw = api::select(grad_weight_g, 0, grp);
        api::add_mm_<scalar_t>(gw, go, api::transposed(api::select(columns_g, 0, grp)));
        api::Tensor gc = api::select(grad_columns_g, 0, grp);
        api::mm_out(gc, api::transposed(api::select(weight_g, 0, grp)), go);
      }
      const T* gcols = api::data<T>(grad_columns);
      // 4. grad_offset, grad_mask
      api::parallel_for(0, offset_groups * K * P, 256, [&](int64_t begin, int64_t end) {
        for (int64_t e = begin; e < end; ++e) {
          const int64_t p = e % P, gk = e / P, og = gk / K, k = gk % K;
          const TapSample<T>& s = table[e];
          T gy = 0, gx = 0, gm = 0;
          for (int64_t c = og * channels_per_og; c < (og + 1) * channels_per_og; ++c) {
            const T* plane = input + c * HW;
            const T gcol = gcols[(c * K + k) * P + p];
            T v[4];
            for (int j = 0; j < 4; ++j) v[j] = plane[s.idx[j]];
            gm += gcol * (s.w[0] * v[0] + s.w[1] * v[1] + s.w[2] * v[2] + s.w[3] * v[3]);
            gy += gcol * (s.wy[0] * v[0] + s.wy[1] * v[1] + s.wy[2] * v[2] + s.wy[3] * v[3]);
            gx += gcol * (s.wx[0] * v[0] + s.wx[1] * v[1] + s.wx[2] * v[2] + s.wx[3] * v[3]);
          }
          g_offset[(og * 2 * K + 2 * k) * P + p] = gy * s.mask;
          g_offset[(og * 2 * K + 2 * k + 1) * P + p] = gx * s.mask;
          if (g_mask) g_mask[gk * P + p] = gm;
        }
      });
      // 5. grad_input
      api::parallel_for(0, g.in_channels, 1, [&](int64_t begin, int64_t end) {
        for (int64_t c = begin; c < end; ++c) {
          const int64_t og = c / channels_per_og;
          T* plane = g_input + c * HW;
          for (int64_t k = 0; k < K; ++k) {
            const TapSample<T>* s = table.data() + (og * K + k) * P;
            const T* gc = gcols + (c * K + k) * P;
            for (int64_t p = 0; p < P; ++p) {
              const T v = gc[p] * s[p].mask;
              for (int j = 0; j < 4; ++j) plane[s[p].idx[j]] += v * s[p].w[j];
            }
          }
        }
      });
    }
  });
  return {grad_input, grad_weight, grad_offset, grad_mask, grad_bias};
}

}  // namespace

OPMATRIX_LIBRARY_IMPL(CPU, m) {
  m.impl("deform_conv2d", OPMATRIX_KERNEL(deform_conv2d_forward_kernel));
  m.impl("_deform_conv2d_backward", OPMATRIX_KERNEL(deform_conv2d_backward_kernel));
}

}  // namespace opmatrix
