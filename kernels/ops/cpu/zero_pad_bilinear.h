// Bilinear sampling of one H x W plane with zero padding, the convention of both
// torchvision's deform_conv2d and Deformable-DETR's sampler: a point counts only inside
// (-1, H) x (-1, W), and corners that fall outside the plane contribute 0.
// The helpers return corner indices and weights instead of values, so that one set of
// weights serves every channel that shares the sampling point (the CPU kernels' main win).
#pragma once

#include <cmath>
#include <cstdint>

namespace opmatrix {
namespace cpu {

// Corners ordered (y0,x0), (y0,x1), (y1,x0), (y1,x1). Corners outside the plane get
// index 0 and weight 0, so callers may gather all four without branches — as long as the
// plane is not empty (H * W > 0).
template <typename T>
struct BilinearCorners {
  int64_t idx[4];
  T w[4];
};

// Adds d(weight)/dy and d(weight)/dx, for gradients with respect to the sampling point.
template <typename T>
struct BilinearCornersGrad : BilinearCorners<T> {
  T wy[4];
  T wx[4];
};

template <typename T>
inline bool inside_plane(T y, T x, int64_t H, int64_t W) {
  return y > T(-1) && x > T(-1) && y < T(H) && x < T(W);
}

template <typename T>
inline void bilinear_corners(T y, T x, int64_t H, int64_t W, BilinearCorners<T>& c) {
  for (int j = 0; j < 4; ++j) {
    c.idx[j] = 0;
    c.w[j] = T(0);
  }
  if (!inside_plane(y, x, H, W)) return;
  const int64_t y0 = static_cast<int64_t>(std::floor(y));
  const int64_t x0 = static_cast<int64_t>(std::floor(x));
  const T ly = y - T(y0), lx = x - T(x0);
  const T hy = T(1) - ly, hx = T(1) - lx;
  const bool row0 = y0 >= 0, row1 = y0 + 1 < H;
  const bool col0 = x0 >= 0, col1 = x0 + 1 < W;
  if (row0 && col0) { c.idx[0] = y0 * W + x0;           c.w[0] = hy * hx; }
  if (row0 && col1) { c.idx[1] = y0 * W + x0 + 1;       c.w[1] = hy * lx; }
  if (row1 && col0) { c.idx[2] = (y0 + 1) * W + x0;     c.w[2] = ly * hx; }
  if (row1 && col1) { c.idx[3] = (y0 + 1) * W + x0 + 1; c.w[3] = ly * lx; }
}

template <typename T>
inline void bilinear_corners_grad(T y, T x, int64_t H, int64_t W, BilinearCornersGrad<T>& c) {
  for (int j = 0; j < 4; ++j) {
    c.idx[j] = 0;
    c.w[j] = c.wy[j] = c.wx[j] = T(0);
  }
  if (!inside_plane(y, x, H, W)) return;
  const int64_t y0 = static_cast<int64_t>(std::floor(y));
  const int64_t x0 = static_cast<int64_t>(std::floor(x));
  const T ly = y - T(y0), lx = x - T(x0);
  const T hy = T(1) - ly, hx = T(1) - lx;
  const bool row0 = y0 >= 0, row1 = y0 + 1 < H;
  const bool col0 = x0 >= 0, col1 = x0 + 1 < W;
  if (row0 && col0) { c.idx[0] = y0 * W + x0;           c.w[0] = hy * hx; c.wy[0] = -hx; c.wx[0] = -hy; }
  if (row0 && col1) { c.idx[1] = y0 * W + x0 + 1;       c.w[1] = hy * lx; c.wy[1] = -lx; c.wx[1] = hy; }
  if (row1 && col0) { c.idx[2] = (y0 + 1) * W + x0;     c.w[2] = ly * hx; c.wy[2] = hx;  c.wx[2] = -ly; }
  if (row1 && col1) { c.idx[3] = (y0 + 1) * W + x0 + 1; c.w[3] = ly * lx; c.wy[3] = lx;  c.wx[3] = ly; }
}

}  // namespace cpu
}  // namespace opmatrix
