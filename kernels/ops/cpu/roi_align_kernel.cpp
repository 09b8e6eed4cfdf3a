// CPU kernels of opmatrix::roi_align and opmatrix::_roi_align_backward.
//
// Same arithmetic as torchvision (sample coordinates, clamping, weights w1..w4 and the
// order of the sums are written the same way in scalar_t), so results match bit for bit;
// what differs is the memory access pattern:
//  - per roi, the sampling taps are separable: a row tap (y_low, y_high, ly, hy) per
//    (ph, iy) and a column tap per (pw, ix), computed once for all channels; the weights
//    w1 = hy * hx … are formed on the fly (the same products torchvision precomputes);
//  - forward, where the rois read the input more than once over: work items are (image,
//    16-channel block), the block copied channels-last into a per-thread buffer that stays in
//    cache while all the image's rois sample it, a vector of channels per corner read;
//    otherwise channel-major over rois grouped by image, one input plane in cache while every
//    roi samples it (torchvision walks roi-major and refetches each plane region from memory
//    for every roi); both in parallel with at::parallel_for;
//  - backward runs in parallel over channels (disjoint grad planes, no atomics), visiting
//    rois and bins in torchvision's order so the accumulation order is the same.
#define TORCH_ASSERT_ONLY_METHOD_OPERATORS

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "ops/cpu/simd.h"
#include "ops/roi_align_check.h"
#include "ops/tensor_api.h"

namespace opmatrix {
namespace {

constexpr int64_t kRoiChunk = 32;  // rois per forward work item

// One bilinear tap along one axis. An out-of-range sample gets all-zero weights (the
// product with the other axis is then 0 too) and valid = false.
template <typename T>
struct Tap {
  int64_t lo, hi;
  T l, h;
  bool valid;
};

// torchvision's per-axis coordinate handling for coordinate `v` on an axis of length `size`.
template <typename T>
inline Tap<T> make_tap(T v, int64_t size) {
  if (!(v >= -1.0 && v <= size)) return {0, 0, T(0), T(0), false};
  if (v <= 0) v = 0;
  int64_t lo = static_cast<int64_t>(v);
  int64_t hi;
  if (lo >= size - 1) {
    hi = lo = size - 1;
    v = static_cast<T>(lo);
  } else {
    hi = lo + 1;
  }
  const T l = v - lo;
  const T h = 1. - l;
  return {lo, hi, l, h, true};
}

// Geometry of one roi and where its taps live in the shared tap arrays.
template <typename T>
struct RoiPlan {
  int64_t batch;
  int64_t grid_h, grid_w;
  int64_t y_taps, x_taps;  // offsets into the row / column tap arrays
  T count;                 // forward divisor: max(grid_h * grid_w, 1)
};

template <typename T>
struct Plan {
  std::vector<RoiPlan<T>> rois;
  std::vector<Tap<T>> y, x;
};

template <typename T>
Plan<T> make_plan(const T* rois, int64_t num_rois, T spatial_scale, int64_t height,
                  int64_t width, int64_t pooled_height, int64_t pooled_width,
                  int64_t sampling_ratio, bool aligned) {
  Plan<T> plan;
  plan.rois.resize(num_rois);
  // First pass: grid sizes, so tap storage can be laid out (adaptive grids vary per roi).
  std::vector<T> geometry(4 * num_rois);  // roi_start_h, roi_start_w, bin_size_h, bin_size_w
  int64_t y_total = 0, x_total = 0;
  for (int64_t n = 0; n < num_rois; ++n) {
    const T* r = rois + 5 * n;
    const T offset = aligned ? (T)0.5 : (T)0.0;
    const T roi_start_w = r[1] * spatial_scale - offset;
    const T roi_start_h = r[2] * spatial_scale - offset;
    const T roi_end_w = r[3] * spatial_scale - offset;
    const T roi_end_h = r[4] * spatial_scale - offset;
    T roi_width = roi_end_w - roi_start_w;
    T roi_height = roi_end_h - roi_start_h;
    if (!aligned) {  // malformed rois are forced to 1x1, as in torchvision
      roi_width = std::max(roi_width, (T)1.);
      roi_height = std::max(roi_height, (T)1.);
    }
    const T bin_size_h = static_cast<T>(roi_height) / static_cast<T>(pooled_height);
    const T bin_size_w = static_cast<T>(roi_width) / static_cast<T>(pooled_width);
    const int64_t grid_h = sampling_ratio > 0
        ? sampling_ratio : static_cast<int64_t>(std::ceil(roi_height / static_cast<T>(pooled_height)));
    const int64_t grid_w = sampling_ratio > 0
        ? sampling_ratio : static_cast<int64_t>(std::ceil(roi_width / static_cast<T>(pooled_width)));
    auto& p = plan.rois[n];
    p.batch = static_cast<int64_t>(r[0]);
    p.grid_h = std::max<int64_t>(grid_h, 0);
    p.grid_w = std::max<int64_t>(grid_w, 0);
    p.count = std::max<T>(static_cast<T>(p.grid_h * p.grid_w), T(1));
    p.y_taps = y_total;
    p.x_taps = x_total;
    y_total += pooled_height * p.grid_h;
    x_total += pooled_width * p.grid_w;
    T* g = geometry.data() + 4 * n;
    g[0] = roi_start_h;
    g[1] = roi_start_w;
    g[2] = bin_size_h;
    g[3] = bin_size_w;
  }
  plan.y.resize(y_total);
  plan.x.resize(x_total);
  api::parallel_for(0, num_rois, 64, [&](int64_t begin, int64_t end) {
    for (int64_t n = begin; n < end; ++n) {
      const auto& p = plan.rois[n];
      const T* g = geometry.data() + 4 * n;
      Tap<T>* ty = plan.y.data() + p.y_taps;
      for (int64_t ph = 0; ph < pooled_height; ++ph) {
        for (int64_t iy = 0; iy < p.grid_h; ++iy) {
          const T yy = g[0] + ph * g[2] +
              static_cast<T>(iy + .5f) * g[2] / static_cast<T>(p.grid_h);
          *ty++ = make_tap<T>(yy, height);
        }
      }
      Tap<T>* tx = plan.x.data() + p.x_taps;
      for (int64_t pw = 0; pw < pooled_width; ++pw) {
        for (int64_t ix = 0; ix < p.grid_w; ++ix) {
          const T xx = g[1] + pw * g[3] +
              static_cast<T>(ix + .5f) * g[3] / static_cast<T>(p.grid_w);
          *tx++ = make_tap<T>(xx, width);
        }
      }
    }
  });
  return plan;
}

// Channels per block of the channels-last path: two AVX2 vectors of float, four of double.
constexpr int64_t kChannelBlock = 16;

// acc[c] += w1 * p1[c] + w2 * p2[c] + w3 * p3[c] + w4 * p4[c] for the block's channels:
// torchvision's per-channel expression, evaluated for a vector of channels at a time (same
// operations in the same order in every lane, so the same rounding).
template <typename T>
OPMATRIX_ALWAYS_INLINE void accumulate_taps(T* acc, const T* p1, const T* p2, const T* p3,
                                            const T* p4, T w1, T w2, T w3, T w4) {
  typedef T Vec __attribute__((vector_size(32)));
  constexpr int64_t kLanes = sizeof(Vec) / sizeof(T);
  static_assert(kChannelBlock % kLanes == 0, "a block is whole vectors");
  for (int64_t c = 0; c < kChannelBlock; c += kLanes) {
    Vec a, v1, v2, v3, v4;
    std::memcpy(&a, acc + c, sizeof a);
    std::memcpy(&v1, p1 + c, sizeof v1);
    std::memcpy(&v2, p2 + c, sizeof v2);
    std::memcpy(&v3, p3 + c, sizeof v3);
    std::memcpy(&v4, p4 + c, sizeof v4);
    a += w1 * v1 + w2 * v2 + w3 * v3 + w4 * v4;
    std::memcpy(acc + c, &a, sizeof a);
  }
}

// Channels [c0, c0 + count) of image plane set `image` ([C][H * W]) into `block`
// ([H * W][kChannelBlock], channels past `count` zero), in pixel tiles that stay in L1.
template <typename T>
OPMATRIX_ALWAYS_INLINE void copy_block(const T* image, int64_t plane, int64_t c0, int64_t count,
                                       T* block) {
  constexpr int64_t kPixels = 64;
  for (int64_t p0 = 0; p0 < plane; p0 += kPixels) {
    const int64_t p1 = std::min(plane, p0 + kPixels);
    for (int64_t j = 0; j < kChannelBlock; ++j) {
      const T* src = image + (c0 + j) * plane;
      for (int64_t p = p0; p < p1; ++p) block[p * kChannelBlock + j] = j < count ? src[p] : T(0);
    }
  }
}

// Every roi of one image for one channel block: the block's channels-last copy is in cache
// while all rois sample it; each tap's four corners are read as vectors of channels.
template <typename T>
OPMATRIX_ALWAYS_INLINE void block_rois_impl(const T* image, const Plan<T>& plan,
                                            const int64_t* rois, int64_t num_rois,
                                            int64_t channels, int64_t c0, int64_t width,
                                            int64_t plane, int64_t pooled_height,
                                            int64_t pooled_width, T* block, T* out) {
  const int64_t count = std::min(kChannelBlock, channels - c0);
  copy_block(image, plane, c0, count, block);
  const int64_t bins = pooled_height * pooled_width;
  for (int64_t r = 0; r < num_rois; ++r) {
    const int64_t n = rois[r];
    const auto& p = plan.rois[n];
    T* dst = out + (n * channels + c0) * bins;
    const Tap<T>* ty = plan.y.data() + p.y_taps;
    for (int64_t ph = 0; ph < pooled_height; ++ph, ty += p.grid_h) {
      const Tap<T>* tx = plan.x.data() + p.x_taps;
      for (int64_t pw = 0; pw < pooled_width; ++pw, tx += p.grid_w) {
        alignas(32) T acc[kChannelBlock] = {};
        for (int64_t iy = 0; iy < p.grid_h; ++iy) {
          const Tap<T>& a = ty[iy];
          const T* row_lo = block + a.lo * width * kChannelBlock;
          const T* row_hi = block + a.hi * width * kChannelBlock;
          for (int64_t ix = 0; ix < p.grid_w; ++ix) {
            const Tap<T>& b = tx[ix];
            accumulate_taps(acc, row_lo + b.lo * kChannelBlock, row_lo + b.hi * kChannelBlock,
                            row_hi + b.lo * kChannelBlock, row_hi + b.hi * kChannelBlock,
                            a.h * b.h, a.h * b.l, a.l * b.h, a.l * b.l);
          }
        }
        for (int64_t j = 0; j < count; ++j) dst[j * bins + ph * pooled_width + pw] = acc[j] / p.count;
      }
    }
  }
}

OPMATRIX_SIMD_CLONES void block_rois(const float* image, const Plan<float>& plan,
                                     const int64_t* rois, int64_t num_rois, int64_t channels,
                                     int64_t c0, int64_t width, int64_t plane, int64_t ph,
                                     int64_t pw, float* block, float* out) {
  block_rois_impl(image, plan, rois, num_rois, channels, c0, width, plane, ph, pw, block, out);
}
OPMATRIX_SIMD_CLONES void block_rois(const double* image, const Plan<double>& plan,
                                     const int64_t* rois, int64_t num_rois, int64_t channels,
                                     int64_t c0, int64_t width, int64_t plane, int64_t ph,
                                     int64_t pw, double* block, double* out) {
  block_rois_impl(image, plan, rois, num_rois, channels, c0, width, plane, ph, pw, block, out);
}

// Channels-last pays when the rois read the input several times over: a corner read serves
// a vector of channels, and the copy costs one pass over the input.
template <typename T>
bool channels_last_pays(const Plan<T>& plan, int64_t pooled_height, int64_t pooled_width,
                        int64_t channels, int64_t input_numel) {
  int64_t samples = 0;
  for (const auto& p : plan.rois) samples += p.grid_h * p.grid_w;
  return samples * pooled_height * pooled_width * channels * 4 >= input_numel;
}

// Roi indices grouped by image, in their order within each image (a counting sort):
// image b's rois are rois[start[b] .. start[b + 1]).
struct RoisByImage {
  std::vector<int64_t> rois, start;
};

template <typename T>
RoisByImage group_by_image(const Plan<T>& plan, int64_t batch) {
  RoisByImage g;
  g.start.assign(batch + 1, 0);
  for (const auto& p : plan.rois) ++g.start[p.batch + 1];
  for (int64_t b = 0; b < batch; ++b) g.start[b + 1] += g.start[b];
  g.rois.resize(plan.rois.size());
  std::vector<int64_t> next(g.start.begin(), g.start.end() - 1);
  for (int64_t n = 0; n < static_cast<int64_t>(plan.rois.size()); ++n) g.rois[next[plan.rois[n].batch]++] = n;
  return g;
}

// Work items are (image, channel block): each thread copies one block of one image into a
// buffer of its own (H * W * 16 values, in L2/L3) and runs that image's rois on it, so the
// input is read once and no copy of it is ever written to memory.
template <typename T>
void forward_channels_last(const T* in, const Plan<T>& plan, const RoisByImage& by_image,
                           int64_t batch, int64_t channels, int64_t height, int64_t width,
                           int64_t pooled_height, int64_t pooled_width, T* out) {
  const int64_t plane = height * width;
  const int64_t blocks = (channels + kChannelBlock - 1) / kChannelBlock;
  api::parallel_for(0, batch * blocks, 1, [&](int64_t begin, int64_t end) {
    std::vector<T> block(plane * kChannelBlock);
    for (int64_t item = begin; item < end; ++item) {
      const int64_t image = item / blocks, c0 = (item % blocks) * kChannelBlock;
      const int64_t first = by_image.start[image], count = by_image.start[image + 1] - first;
      if (count == 0) continue;
      block_rois(in + image * channels * plane, plan, by_image.rois.data() + first, count,
                 channels, c0, width, plane, pooled_height, pooled_width, block.data(), out);
    }
  });
}

// The rois grouped by image, channel-major: one input plane stays in cache while every roi
// of its image samples it. For few rois on a large input, where the copy would not pay.
template <typename T>
void forward_channel_major(const T* in, const Plan<T>& plan, const RoisByImage& by_image,
                           int64_t channels, int64_t height, int64_t width, int64_t pooled_height,
                           int64_t pooled_width, T* out) {
  const int64_t num_rois = static_cast<int64_t>(plan.rois.size());
  const std::vector<int64_t>& order = by_image.rois;
  const int64_t plane = height * width;
  const int64_t bins = pooled_height * pooled_width;
  const int64_t chunks = (num_rois + kRoiChunk - 1) / kRoiChunk;
  api::parallel_for(0, channels * chunks, 1, [&](int64_t begin, int64_t end) {
    for (int64_t item = begin; item < end; ++item) {
      const int64_t c = item / chunks;
      const int64_t r0 = (item % chunks) * kRoiChunk;
      const int64_t r1 = std::min(num_rois, r0 + kRoiChunk);
      for (int64_t r = r0; r < r1; ++r) {
        const int64_t n = order[r];
        const auto& p = plan.rois[n];
        const T* src = in + (p.batch * channels + c) * plane;
        T* dst = out + (n * channels + c) * bins;
        const Tap<T>* ty = plan.y.data() + p.y_taps;
        for (int64_t ph = 0; ph < pooled_height; ++ph, ty += p.grid_h) {
          const Tap<T>* tx = plan.x.data() + p.x_taps;
          for (int64_t pw = 0; pw < pooled_width; ++pw, tx += p.grid_w) {
            T output_val = 0.;
            for (int64_t iy = 0; iy < p.grid_h; ++iy) {
              const Tap<T>& a = ty[iy];
              const T* row_lo = src + a.lo * width;
              const T* row_hi = src + a.hi * width;
              for (int64_t ix = 0; ix < p.grid_w; ++ix) {
                const Tap<T>& b = tx[ix];
                const T w1 = a.h * b.h, w2 = a.h * b.l, w3 = a.l * b.h, w4 = a.l * b.l;
                output_val += w1 * row_lo[b.lo] + w2 * row_lo[b.hi] + w3 * row_hi[b.lo] +
                    w4 * row_hi[b.hi];
              }
            }
            output_val /= p.count;
            dst[ph * pooled_width + pw] = output_val;
          }
        }
      }
    }
  });
}

template <typename T>
void roi_align_forward_impl(const api::Tensor& input, const api::Tensor& rois, T spatial_scale,
                            int64_t pooled_height, int64_t pooled_width, int64_t sampling_ratio,
                            bool aligned, api::Tensor& output) {
  const int64_t num_rois = rois.size(0);
  const int64_t batch = input.size(0), channels = input.size(1);
  const int64_t height = input.size(2), width = input.size(3);
  const Plan<T> plan = make_plan<T>(api::data<T>(rois), num_rois, spatial_scale, height, width,
                                    pooled_height, pooled_width, sampling_ratio, aligned);
  for (const auto& p : plan.rois) {
    OPMATRIX_CHECK(p.batch >= 0 && p.batch < batch, "roi_align: roi batch index ", p.batch,
                " out of range for input batch size ", batch);
  }
  const T* in = api::data<T>(input);
  T* out = api::data<T>(output);
  const RoisByImage by_image = group_by_image(plan, batch);
  if (channels_last_pays(plan, pooled_height, pooled_width, channels, input.numel())) {
    forward_channels_last(in, plan, by_image, batch, channels, height, width, pooled_height,
                          pooled_width, out);
  } else {
    forward_channel_major(in, plan, by_image, channels, height, width, pooled_height, pooled_width, out);
  }
}

template <typename T>
void roi_align_backward_impl(const api::Tensor& grad, const api::Tensor& rois, T spatial_scale,
                             int64_t pooled_height, int64_t pooled_width, int64_t batch_size,
                             int64_t channels, int64_t height, int64_t width,
                             int64_t sampling_ratio, bool aligned, api::Tensor& grad_input) {
  const int64_t num_rois = rois.size(0);
  const Plan<T> plan = make_plan<T>(api::data<T>(rois), num_rois, spatial_scale, height, width,
                                    pooled_height, pooled_width, sampling_ratio, aligned);
  for (const auto& p : plan.rois) {
    OPMATRIX_CHECK(p.batch >= 0 && p.batch < batch_size, "roi_align backward: roi batch index ",
                p.batch, " out of range for batch size ", batch_size);
  }
  const T* g = api::data<T>(grad);
  T* gin = api::data<T>(grad_input);
  const int64_t plane = height * width;
  const int64_t bins = pooled_height * pooled_width;
  api::parallel_for(0, channels, 1, [&](int64_t begin, int64_t end) {
    for (int64_t c = begin; c < end; ++c) {
      for (int64_t n = 0; n < num_rois; ++n) {
        const auto& p = plan.rois[n];
        T* dst = gin + (p.batch * channels + c) * plane;
        const T* src = g + (n * channels + c) * bins;
        const T count = static_cast<T>(p.grid_h * p.grid_w);
        const Tap<T>* ty = plan.y.data() + p.y_taps;
        for (int64_t ph = 0; ph < pooled_height; ++ph, ty += p.grid_h) {
          const Tap<T>* tx = plan.x.data() + p.x_taps;
          for (int64_t pw = 0; pw < pooled_width; ++pw, tx += p.grid_w) {
            const T grad_bin = src[ph * pooled_width + pw];
            for (int64_t iy = 0; iy < p.grid_h; ++iy) {
              const Tap<T>& a = ty[iy];
              for (int64_t ix = 0; ix < p.grid_w; ++ix) {
                const Tap<T>& b = tx[ix];
                if (!(a.valid && b.valid)) continue;
                const T w1 = a.h * b.h, w2 = a.h * b.l, w3 = a.l * b.h, w4 = a.l * b.l;
                dst[a.lo * width + b.lo] += static_cast<T>(grad_bin * w1 / count);
                dst[a.lo * width + b.hi] += static_cast<T>(grad_bin * w2 / count);
                dst[a.hi * width + b.lo] += static_cast<T>(grad_bin * w3 / count);
                dst[a.hi * width + b.hi] += static_cast<T>(grad_bin * w4 / count);
              }
            }
          }
        }
      }
    }
  });
}

api::Tensor roi_align_cpu(const api::Tensor& input, const api::Tensor& rois, double spatial_scale,
                         int64_t pooled_height, int64_t pooled_width, int64_t sampling_ratio,
                         bool aligned) {
  OPMATRIX_CHECK(input.is_cpu(), "input must be a CPU tensor");
  OPMATRIX_CHECK(rois.is_cpu(), "rois must be a CPU tensor");
  roi_align_check(input, rois, pooled_height, pooled_width);
  api::Tensor output = api::empty({rois.size(0), input.size(1), pooled_height, pooled_width}, input);
  if (output.numel() == 0) return output;
  if (input.numel() == 0) return api::zero_(output);  // no pixels to sample (H or W is 0)
  const api::Tensor input_c = api::contiguous(input);
  const api::Tensor rois_c = api::contiguous(rois);
  api::dispatch_floating(input.scalar_type(), "opmatrix::roi_align_cpu", [&](auto tag) {
    using scalar_t = decltype(tag);
    roi_align_forward_impl<scalar_t>(input_c, rois_c, static_cast<scalar_t>(spatial_scale),
                                     pooled_height, pooled_width, sampling_ratio, aligned, output);
  });
  return output;
}

api::Tensor roi_align_backward_cpu(const api::Tensor& grad, const api::Tensor& rois,
                                  double spatial_scale, int64_t pooled_height,
                                  int64_t pooled_width, int64_t batch_size, int64_t channels,
                                  int64_t height, int64_t width, int64_t sampling_ratio,
                                  bool aligned) {
  OPMATRIX_CHECK(grad.is_cpu(), "grad must be a CPU tensor");
  OPMATRIX_CHECK(rois.is_cpu(), "rois must be a CPU tensor");
  roi_align_backward_check(grad, rois, pooled_height, pooled_width, batch_size, channels, height,
                           width);
  api::Tensor grad_input = api::zeros({batch_size, channels, height, width}, grad);
  if (grad.numel() == 0 || grad_input.numel() == 0) return grad_input;
  const api::Tensor grad_c = api::contiguous(grad);
  const api::Tensor rois_c = api::contiguous(rois);
  api::dispatch_floating(grad.scalar_type(), "opmatrix::roi_align_backward_cpu", [&](auto tag) {
    using scalar_t = decltype(tag);
    roi_align_backward_impl<scalar_t>(grad_c, rois_c, static_cast<scalar_t>(spatial_scale),
                                      pooled_height, pooled_width, batch_size, channels, height,
                                      width, sampling_ratio, aligned, grad_input);
  });
  return grad_input;
}

}  // namespace

OPMATRIX_LIBRARY_IMPL(CPU, m) {
  m.impl("roi_align", OPMATRIX_KERNEL(roi_align_cpu));
  m.impl("_roi_align_backward", OPMATRIX_KERNEL(roi_align_backward_cpu));
}

}  // namespace opmatrix
