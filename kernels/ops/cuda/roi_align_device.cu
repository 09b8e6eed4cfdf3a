// The device code of opmatrix::roi_align and _roi_align_backward on CUDA (torchvision's
// algorithm; tensors, checks and registration in roi_align_kernel.cpp): forward, one thread
// per output element (n, c, ph, pw) averaging its bilinear samples; backward, one thread per
// grad element scattering into grad_input with atomics. Arithmetic in at::opmath_type.
// Only CUDA's and c10's scalar headers here (nms_device.cu says why).
#include <ATen/OpMathType.h>
#include <ATen/cuda/Atomic.cuh>
#include <c10/util/BFloat16.h>
#include <c10/util/Half.h>

#include <algorithm>

#include "ops/cuda/roi_align_device.h"

namespace opmatrix {
namespace cuda {
namespace {

constexpr int kThreads = 256;

inline int64_t grid_for(int64_t n) {
  return std::min<int64_t>((n + kThreads - 1) / kThreads, 65535);
}

// Roi geometry in opmath (same expressions as the CPU kernel).
template <typename A>
struct RoiGeometry {
  int64_t batch;
  A start_h, start_w, bin_h, bin_w;
  int grid_h, grid_w;
};

template <typename T, typename A>
__device__ inline RoiGeometry<A> roi_geometry(const T* roi, A spatial_scale, int64_t pooled_height,
                                              int64_t pooled_width, int64_t sampling_ratio,
                                              bool aligned) {
  RoiGeometry<A> g;
  g.batch = static_cast<int64_t>(static_cast<A>(roi[0]));
  const A offset = aligned ? A(0.5) : A(0);
  g.start_w = static_cast<A>(roi[1]) * spatial_scale - offset;
  g.start_h = static_cast<A>(roi[2]) * spatial_scale - offset;
  A roi_width = static_cast<A>(roi[3]) * spatial_scale - offset - g.start_w;
  A roi_height = static_cast<A>(roi[4]) * spatial_scale - offset - g.start_h;
  if (!aligned) {
    roi_width = max(roi_width, A(1));
    roi_height = max(roi_height, A(1));
  }
  g.bin_h = roi_height / static_cast<A>(pooled_height);
  g.bin_w = roi_width / static_cast<A>(pooled_width);
  g.grid_h = sampling_ratio > 0 ? static_cast<int>(sampling_ratio)
                                : static_cast<int>(ceil(roi_height / static_cast<A>(pooled_height)));
  g.grid_w = sampling_ratio > 0 ? static_cast<int>(sampling_ratio)
                                : static_cast<int>(ceil(roi_width / static_cast<A>(pooled_width)));
  g.grid_h = max(g.grid_h, 0);
  g.grid_w = max(g.grid_w, 0);
  return g;
}

// Bilinear taps of one sample; false when the sample lies outside (-1, size] on an axis.
template <typename A>
__device__ inline bool taps(A y, A x, int64_t height, int64_t width, int64_t& y_lo, int64_t& y_hi,
                            int64_t& x_lo, int64_t& x_hi, A& w1, A& w2, A& w3, A& w4) {
  if (!(y >= A(-1) && y <= static_cast<A>(height) && x >= A(-1) && x <= static_cast<A>(width))) return false;
  if (y <= 0) y = 0;
  if (x <= 0) x = 0;
  y_lo = static_cast<int64_t>(y);
  x_lo = static_cast<int64_t>(x);
  if (y_lo >= height - 1) {
    y_hi = y_lo = height - 1;
    y = static_cast<A>(y_lo);
  } else {
    y_hi = y_lo + 1;
  }
  if (x_lo >= width - 1) {
    x_hi = x_lo = width - 1;
    x = static_cast<A>(x_lo);
  } else {
    x_hi = x_lo + 1;
  }
  const A ly = y - y_lo, lx = x - x_lo;
  const A hy = A(1) - ly, hx = A(1) - lx;
  w1 = hy * hx;
  w2 = hy * lx;
  w3 = ly * hx;
  w4 = ly * lx;
  return true;
}

template <typename T>
__global__ void roi_align_forward_kernel(int64_t total, const T* input, const T* rois,
                                         double spatial_scale, int64_t channels, int64_t height,
                                         int64_t width, int64_t pooled_height,
                                         int64_t pooled_width, int64_t sampling_ratio,
                                         bool aligned, T* output) {
  using A = at::opmath_type<T>;
  for (int64_t index = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; index < total;
       index += int64_t(blockDim.x) * gridDim.x) {
    const int64_t pw = index % pooled_width;
    const int64_t ph = (index / pooled_width) % pooled_height;
    const int64_t c = (index / pooled_width / pooled_height) % channels;
    const int64_t n = index / pooled_width / pooled_height / channels;
    const auto g = roi_geometry<T, A>(rois + n * 5, static_cast<A>(spatial_scale), pooled_height,
                                      pooled_width, sampling_ratio, aligned);
    const T* plane = input + (g.batch * channels + c) * height * width;
    A sum = 0;
    for (int iy = 0; iy < g.grid_h; ++iy) {
      const A y = g.start_h + ph * g.bin_h + static_cast<A>(iy + .5f) * g.bin_h / static_cast<A>(g.grid_h);
      for (int ix = 0; ix < g.grid_w; ++ix) {
        const A x = g.start_w + pw * g.bin_w + static_cast<A>(ix + .5f) * g.bin_w / static_cast<A>(g.grid_w);
        int64_t y_lo, y_hi, x_lo, x_hi;
        A w1, w2, w3, w4;
        if (!taps(y, x, height, width, y_lo, y_hi, x_lo, x_hi, w1, w2, w3, w4)) continue;
        sum += w1 * static_cast<A>(plane[y_lo * width + x_lo]) +
            w2 * static_cast<A>(plane[y_lo * width + x_hi]) +
            w3 * static_cast<A>(plane[y_hi * width + x_lo]) +
            w4 * static_cast<A>(plane[y_hi * width + x_hi]);
      }
    }
    const A count = max(static_cast<A>(g.grid_h * g.grid_w), A(1));
    output[index] = static_cast<T>(sum / count);
  }
}

template <typename T>
__global__ void roi_align_backward_kernel(int64_t total, const T* grad, const T* rois,
                                          double spatial_scale, int64_t channels, int64_t height,
                                          int64_t width, int64_t pooled_height,
                                          int64_t pooled_width, int64_t sampling_ratio,
                                          bool aligned, T* grad_input) {
  using A = at::opmath_type<T>;
  for (int64_t index = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; index < total;
       index += int64_t(blockDim.x) * gridDim.x) {
    const int64_t pw = index % pooled_width;
    const int64_t ph = (index / pooled_width) % pooled_height;
    const int64_t c = (index / pooled_width / pooled_height) % channels;
    const int64_t n = index / pooled_width / pooled_height / channels;
    const auto g = roi_geometry<T, A>(rois + n * 5, static_cast<A>(spatial_scale), pooled_height,
                                      pooled_width, sampling_ratio, aligned);
    T* plane = grad_input + (g.batch * channels + c) * height * width;
    const A grad_bin = static_cast<A>(grad[index]);
    const A count = static_cast<A>(g.grid_h * g.grid_w);
    for (int iy = 0; iy < g.grid_h; ++iy) {
      const A y = g.start_h + ph * g.bin_h + static_cast<A>(iy + .5f) * g.bin_h / static_cast<A>(g.grid_h);
      for (int ix = 0; ix < g.grid_w; ++ix) {
        const A x = g.start_w + pw * g.bin_w + static_cast<A>(ix + .5f) * g.bin_w / static_cast<A>(g.grid_w);
        int64_t y_lo, y_hi, x_lo, x_hi;
        A w1, w2, w3, w4;
        if (!taps(y, x, height, width, y_lo, y_hi, x_lo, x_hi, w1, w2, w3, w4)) continue;
        gpuAtomicAdd(plane + y_lo * width + x_lo, static_cast<T>(grad_bin * w1 / count));
        gpuAtomicAdd(plane + y_lo * width + x_hi, static_cast<T>(grad_bin * w2 / count));
        gpuAtomicAdd(plane + y_hi * width + x_lo, static_cast<T>(grad_bin * w3 / count));
        gpuAtomicAdd(plane + y_hi * width + x_hi, static_cast<T>(grad_bin * w4 / count));
      }
    }
  }
}

}  // namespace

template <typename T>
void roi_align_forward(int64_t total, const T* input, const T* rois, double spatial_scale, int64_t channels,
                       int64_t height, int64_t width, int64_t pooled_height, int64_t pooled_width,
                       int64_t sampling_ratio, bool aligned, T* output, cudaStream_t stream) {
  roi_align_forward_kernel<T><<<grid_for(total), kThreads, 0, stream>>>(
      total, input, rois, spatial_scale, channels, height, width, pooled_height, pooled_width,
      sampling_ratio, aligned, output);
}

template <typename T>
void roi_align_backward(int64_t total, const T* grad, const T* rois, double spatial_scale, int64_t channels,
                        int64_t height, int64_t width, int64_t pooled_height, int64_t pooled_width,
                        int64_t sampling_ratio, bool aligned, T* grad_input, cudaStream_t stream) {
  roi_align_backward_kernel<T><<<grid_for(total), kThreads, 0, stream>>>(
      total, grad, rois, spatial_scale, channels, height, width, pooled_height, pooled_width,
      sampling_ratio, aligned, grad_input);
}

#define OPMATRIX_ROI_ALIGN_INSTANTIATE(T)                                                              \
  template void roi_align_forward<T>(int64_t, const T*, const T*, double, int64_t, int64_t, int64_t,  \
                                     int64_t, int64_t, int64_t, bool, T*, cudaStream_t);               \
  template void roi_align_backward<T>(int64_t, const T*, const T*, double, int64_t, int64_t, int64_t, \
                                      int64_t, int64_t, int64_t, bool, T*, cudaStream_t);
OPMATRIX_ROI_ALIGN_INSTANTIATE(float)
OPMATRIX_ROI_ALIGN_INSTANTIATE(double)
OPMATRIX_ROI_ALIGN_INSTANTIATE(c10::Half)
OPMATRIX_ROI_ALIGN_INSTANTIATE(c10::BFloat16)

}  // namespace cuda
}  // namespace opmatrix
