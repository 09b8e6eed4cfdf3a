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

// Where an in-plane (y, x) falls: its top-left pixel (y0, x0), the distances to the far
// (l) and near (h) pixel edges, and which corners (BilinearCorners order) lie on the plane.
// Shared by the value and gradient weights so both agree on the cell to the bit.
template <typename T>
struct BilinearCell {
  int64_t y0, x0;
  T ly, lx, hy, hx;
  bool on_plane[4];
};

template <typename T>
inline BilinearCell<T> bilinear_cell(T y, T x, int64_t H, int64_t W) {
  BilinearCell<T> k;
  k.y0 = static_cast<int64_t>(std::floor(y));
  k.x0 = static_cast<int64_t>(std::floor(x));
  k.ly = y - T(k.y0);
  k.lx = x - T(k.x0);
  k.hy = T(1) - k.ly;
  k.hx = T(1) - k.lx;
  const bool row0 = k.y0 >= 0, row1 = k.y0 + 1 < H;
  const bool col0 = k.x0 >= 0, col1 = k.x0 + 1 < W;
  k.on_plane[0] = row0 && col0;
  k.on_plane[1] = row0 && col1;
  k.on_plane[2] = row1 && col0;
  k.on_plane[3] = row1 && col1;
  return k;
}

// Corner j of the cell: (y0 + j / 2, x0 + j % 2), as a flat index into the H x W plane.
template <typename T>
inline int64_t corner_index(const BilinearCell<T>& k, int j, int64_t W) {
  return (k.y0 + j / 2) * W + k.x0 + j % 2;
}

template <typename T>
inline void bilinear_corners(T y, T x, int64_t H, int64_t W, BilinearCorners<T>& c) {
  for (int j = 0; j < 4; ++j) {
    c.idx[j] = 0;
    c.w[j] = T(0);
  }
  if (!inside_plane(y, x, H, W)) return;
  const BilinearCell<T> k = bilinear_cell(y, x, H, W);
  const T w[4] = {k.hy * k.hx, k.hy * k.lx, k.ly * k.hx, k.ly * k.lx};
  for (int j = 0; j < 4; ++j) {
    if (!k.on_plane[j]) continue;
    c.idx[j] = corner_index(k, j, W);
    c.w[j] = w[j];
  }
}

template <typename T>
inline void bilinear_corners_grad(T y, T x, int64_t H, int64_t W, BilinearCornersGrad<T>& c) {
  for (int j = 0; j < 4; ++j) {
    c.idx[j] = 0;
    c.w[j] = c.wy[j] = c.wx[j] = T(0);
  }
  if (!inside_plane(y, x, H, W)) return;
  const BilinearCell<T> k = bilinear_cell(y, x, H, W);
  const T w[4] = {k.hy * k.hx, k.hy * k.lx, k.ly * k.hx, k.ly * k.lx};
  const T wy[4] = {-k.hx, -k.lx, k.hx, k.lx};  // d(w)/dy
  const T wx[4] = {-k.hy, k.hy, -k.ly, k.ly};  // d(w)/dx
  for (int j = 0; j < 4; ++j) {
    if (!k.on_plane[j]) continue;
    c.idx[j] = corner_index(k, j, W);
    c.w[j] = w[j];
    c.wy[j] = wy[j];
    c.wx[j] = wx[j];
  }
}

}  // namespace cpu
}  // namespace opmatrix
