// Device-side bilinear sampling with zero padding (see ops/cpu/zero_pad_bilinear.h for the
// convention): a point counts only inside (-1, H) x (-1, W); corners outside the plane
// contribute 0. T is the arithmetic type (at::opmath_type of the tensor's dtype).
#pragma once

#include <cstdint>

namespace opmatrix {
namespace cuda {

template <typename T>
struct Corners {
  int64_t idx[4];  // (y0,x0), (y0,x1), (y1,x0), (y1,x1) in the H x W plane
  T w[4];          // bilinear weights
  T wy[4], wx[4];  // d(weight)/dy, d(weight)/dx
  bool valid[4];   // corner inside the plane
};

template <typename T>
__device__ __forceinline__ bool inside_plane(T y, T x, int64_t H, int64_t W) {
  return y > T(-1) && x > T(-1) && y < T(H) && x < T(W);
}

// Caller checks inside_plane first.
template <typename T>
__device__ __forceinline__ void corners(T y, T x, int64_t H, int64_t W, Corners<T>& c) {
  const T fy = floor(y), fx = floor(x);
  const int64_t y0 = static_cast<int64_t>(fy), x0 = static_cast<int64_t>(fx);
  const T ly = y - fy, lx = x - fx;
  const T hy = T(1) - ly, hx = T(1) - lx;
  const bool row0 = y0 >= 0, row1 = y0 + 1 < H, col0 = x0 >= 0, col1 = x0 + 1 < W;
  c.valid[0] = row0 && col0; c.idx[0] = y0 * W + x0;
  c.valid[1] = row0 && col1; c.idx[1] = y0 * W + x0 + 1;
  c.valid[2] = row1 && col0; c.idx[2] = (y0 + 1) * W + x0;
  c.valid[3] = row1 && col1; c.idx[3] = (y0 + 1) * W + x0 + 1;
  c.w[0] = hy * hx; c.wy[0] = -hx; c.wx[0] = -hy;
  c.w[1] = hy * lx; c.wy[1] = -lx; c.wx[1] = hy;
  c.w[2] = ly * hx; c.wy[2] = hx;  c.wx[2] = -ly;
  c.w[3] = ly * lx; c.wy[3] = lx;  c.wx[3] = ly;
}

// Grid-stride launch geometry: enough blocks to fill the GPU, capped.
constexpr int kThreads = 256;
inline unsigned int blocks_for(int64_t n) {
  const int64_t b = (n + kThreads - 1) / kThreads;
  return static_cast<unsigned int>(b < 65536 ? (b > 0 ? b : 1) : 65536);
}

}  // namespace cuda
}  // namespace opmatrix
