// The few tensor operations our kernels need, over the two ABIs they are compiled for:
//  - ATen (libopmatrix_ops.so): at::Tensor, TORCH_LIBRARY; works from torch 1.13 on, but the
//    binary only loads in the torch it was built with (it calls C++ symbols of libtorch);
//  - the LibTorch stable ABI (libopmatrix_ops_stable.so, OPMATRIX_STABLE_ABI defined, built
//    with -DTORCH_TARGET_VERSION): torch::stable::Tensor and STABLE_TORCH_LIBRARY, calling
//    libtorch only through its versioned C shim, so one binary loads in every torch from the
//    target version on.
// Kernels include this header instead of ATen's, so both libraries come from the same sources.
// Nothing here may change a result: each function is the ATen call the kernels made before,
// or its stable-ABI equivalent.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

#ifdef OPMATRIX_STABLE_ABI
#include <torch/csrc/stable/library.h>
#include <torch/csrc/stable/ops.h>
#include <torch/csrc/stable/tensor.h>
#include <torch/headeronly/core/ScalarType.h>
#include <torch/headeronly/util/Exception.h>
#else
#include <ATen/Parallel.h>
#include <ATen/core/Tensor.h>
#include <ATen/ops/addmm.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/empty_like.h>
#include <ATen/ops/mm.h>
#include <ATen/ops/sum.h>
#include <ATen/ops/zeros.h>
#include <ATen/ops/zeros_like.h>
#include <c10/util/Exception.h>
#include <torch/library.h>
#endif

#include <tuple>  // below the ABI headers, whose line numbers the stable-abi check quotes

namespace opmatrix::api {

#ifdef OPMATRIX_STABLE_ABI
using Tensor = torch::stable::Tensor;
using ScalarType = torch::headeronly::ScalarType;
#define OPMATRIX_CHECK(cond, ...) STD_TORCH_CHECK(cond, __VA_ARGS__)
// Registration: `m.impl("op", OPMATRIX_KERNEL(fn))` inside OPMATRIX_LIBRARY_IMPL(Key, m).
#define OPMATRIX_LIBRARY_FRAGMENT(m) STABLE_TORCH_LIBRARY_FRAGMENT(opmatrix, m)
#define OPMATRIX_LIBRARY_IMPL(key, m) STABLE_TORCH_LIBRARY_IMPL(opmatrix, key, m)
#define OPMATRIX_KERNEL(fn) TORCH_BOX(&fn)
#else
using Tensor = at::Tensor;
using ScalarType = at::ScalarType;
#define OPMATRIX_CHECK(cond, ...) TORCH_CHECK(cond, __VA_ARGS__)
#define OPMATRIX_LIBRARY_FRAGMENT(m) TORCH_LIBRARY_FRAGMENT(opmatrix, m)
#define OPMATRIX_LIBRARY_IMPL(key, m) TORCH_LIBRARY_IMPL(opmatrix, key, m)
#define OPMATRIX_KERNEL(fn) TORCH_FN(fn)
#endif

constexpr ScalarType kFloat = ScalarType::Float;
constexpr ScalarType kDouble = ScalarType::Double;
constexpr ScalarType kLong = ScalarType::Long;

// "cpu", "cuda:0", "meta": how ATen prints a device, for messages.
inline std::string device_text(const Tensor& t) {
#ifdef OPMATRIX_STABLE_ABI
  if (t.is_cpu()) return "cpu";
  if (t.is_cuda()) return "cuda:" + std::to_string(t.get_device_index());
  return "device type " + std::to_string(static_cast<int>(t.device().type()));
#else
  return t.device().str();
#endif
}

// "[2, 5]": how ATen prints a tensor's sizes, for messages.
inline std::string sizes_text(const Tensor& t) {
  std::string out = "[";
  for (int64_t d = 0; d < t.dim(); ++d) out += (d ? ", " : "") + std::to_string(t.size(d));
  return out + "]";
}

inline bool same_device(const Tensor& a, const Tensor& b) { return a.device() == b.device(); }

// A new tensor of `sizes` on `like`'s device, with `like`'s dtype or `dtype`.
inline Tensor empty(std::initializer_list<int64_t> sizes, ScalarType dtype, const Tensor& like) {
#ifdef OPMATRIX_STABLE_ABI
  return torch::stable::new_empty(like, sizes, dtype);
#else
  return at::empty(sizes, like.options().dtype(dtype));
#endif
}
// like.options() with its own dtype restated: the same tensor as at::empty(sizes, like.options()).
inline Tensor empty(std::initializer_list<int64_t> sizes, const Tensor& like) {
  return empty(sizes, like.scalar_type(), like);
}
inline Tensor zeros(std::initializer_list<int64_t> sizes, const Tensor& like) {
#ifdef OPMATRIX_STABLE_ABI
  return torch::stable::new_zeros(like, sizes);
#else
  return at::zeros(sizes, like.options());
#endif
}
inline Tensor zeros_like(const Tensor& t) {
#ifdef OPMATRIX_STABLE_ABI
  Tensor out = torch::stable::empty_like(t);
  torch::stable::zero_(out);
  return out;
#else
  return at::zeros_like(t);
#endif
}

inline Tensor contiguous(const Tensor& t) {
#ifdef OPMATRIX_STABLE_ABI
  return torch::stable::contiguous(t);
#else
  return t.contiguous();
#endif
}

inline Tensor narrow(Tensor t, int64_t dim, int64_t start, int64_t length) {
#ifdef OPMATRIX_STABLE_ABI
  return torch::stable::narrow(t, dim, start, length);
#else
  return t.narrow(dim, start, length);
#endif
}

inline Tensor zero_(Tensor t) {
#ifdef OPMATRIX_STABLE_ABI
  return torch::stable::zero_(t);
#else
  return t.zero_();
#endif
}

inline Tensor empty_like(const Tensor& t) {
#ifdef OPMATRIX_STABLE_ABI
  return torch::stable::empty_like(t);
#else
  return at::empty_like(t);
#endif
}

// A contiguous tensor of t's sizes, dtype and device (what a kernel returns for "like t").
inline Tensor empty_contiguous_like(const Tensor& t) {
#ifdef OPMATRIX_STABLE_ABI
  return torch::stable::new_empty(t, t.sizes());
#else
  return at::empty(t.sizes(), t.options());
#endif
}

// empty_contiguous_like of each of `ts`, in order: what a Meta backward returns, one
// gradient per differentiable input.
template <typename... Ts>
auto empty_contiguous_like_each(const Ts&... ts) {
  return std::make_tuple(empty_contiguous_like(ts)...);
}

// at::isFloatingType (the float8 types aside, which no kernel here takes).
inline bool is_floating(ScalarType type) {
#ifdef OPMATRIX_STABLE_ABI
  return type == ScalarType::Half || type == ScalarType::BFloat16 || type == ScalarType::Float ||
         type == ScalarType::Double;
#else
  return at::isFloatingType(type);
#endif
}

inline Tensor view(const Tensor& t, std::initializer_list<int64_t> sizes) {
#ifdef OPMATRIX_STABLE_ABI
  return torch::stable::view(t, sizes);
#else
  return t.view(sizes);
#endif
}

inline Tensor select(const Tensor& t, int64_t dim, int64_t index) {
#ifdef OPMATRIX_STABLE_ABI
  return torch::stable::select(t, dim, index);
#else
  return t.select(dim, index);
#endif
}

// The 2-d transpose (a view), Tensor.t().
inline Tensor transposed(const Tensor& t) {
#ifdef OPMATRIX_STABLE_ABI
  return torch::stable::transpose(t, 0, 1);
#else
  return t.t();
#endif
}

inline void copy_(Tensor dst, const Tensor& src) {
#ifdef OPMATRIX_STABLE_ABI
  torch::stable::copy_(dst, src);
#else
  dst.copy_(src);
#endif
}

// Element pointer of a contiguous tensor of element type T.
template <typename T>
T* data(const Tensor& t) {
#ifdef OPMATRIX_STABLE_ABI
  return t.mutable_data_ptr<T>();
#else
  return t.data_ptr<T>();
#endif
}

// at::parallel_for: f(begin, end) over [begin, end) in chunks of at least `grain`, on torch's
// intra-op thread pool (the same pool and split in both ABIs).
template <typename F>
void parallel_for(int64_t begin, int64_t end, int64_t grain, const F& f) {
#ifdef OPMATRIX_STABLE_ABI
  torch::stable::parallel_for(begin, end, grain, f);
#else
  at::parallel_for(begin, end, grain, f);
#endif
}

// AT_DISPATCH_FLOATING_TYPES as a function: f(T{}) for float and double, an error naming `what`
// otherwise (torchvision's kernels run these two dtypes on the CPU).
template <typename F>
void dispatch_floating(ScalarType type, const char* what, F&& f) {
  switch (type) {
    case ScalarType::Float:
      f(float{});
      return;
    case ScalarType::Double:
      f(double{});
      return;
    default:
      OPMATRIX_CHECK(false, '"', what, "\" not implemented for '", toString(type), "'");
  }
}

// GEMMs of deform_conv2d on torch's BLAS. ATen: at::mm_out / addmm_out / addmm_. The stable
// ABI of torch 2.10 has matmul but no out= or in-place GEMM, so there the product goes to a new
// tensor and the bias or accumulator is added after (out and self are contiguous rows).
inline void mm_out(Tensor out, const Tensor& a, const Tensor& b) {
#ifdef OPMATRIX_STABLE_ABI
  api::copy_(out, torch::stable::matmul(a, b));
#else
  at::mm_out(out, a, b);
#endif
}

// out[i][j] = bias[i][0] + (a @ b)[i][j]
template <typename T>
void addmm_out(Tensor out, const Tensor& bias, const Tensor& a, const Tensor& b) {
#ifdef OPMATRIX_STABLE_ABI
  const Tensor prod = api::contiguous(torch::stable::matmul(a, b));
  const int64_t rows = out.size(0), cols = out.size(1);
  const T* p = api::data<T>(prod);
  const T* c = api::data<T>(bias);
  T* o = api::data<T>(out);
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j) o[i * cols + j] = c[i] + p[i * cols + j];
#else
  at::addmm_out(out, bias, a, b);
#endif
}

// self += a @ b
template <typename T>
void add_mm_(Tensor self, const Tensor& a, const Tensor& b) {
#ifdef OPMATRIX_STABLE_ABI
  const Tensor prod = api::contiguous(torch::stable::matmul(a, b));
  const int64_t n = self.numel();
  const T* p = api::data<T>(prod);
  T* s = api::data<T>(self);
  for (int64_t i = 0; i < n; ++i) s[i] += p[i];
#else
  self.addmm_(a, b);
#endif
}

// [N, C, H, W] -> [C]: the sum over every dimension but 1 (a bias gradient).
inline Tensor sum_to_channels(const Tensor& t4) {
#ifdef OPMATRIX_STABLE_ABI
  const Tensor t = api::contiguous(t4);
  const int64_t n = t.size(0), c = t.size(1), hw = t.size(2) * t.size(3);
  Tensor out = api::zeros({c}, t);
  api::dispatch_floating(t.scalar_type(), "sum_to_channels", [&](auto tag) {
    using T = decltype(tag);
    const T* v = api::data<T>(t);
    T* o = api::data<T>(out);
    for (int64_t i = 0; i < n; ++i)
      for (int64_t ch = 0; ch < c; ++ch)
        for (int64_t k = 0; k < hw; ++k) o[ch] += v[(i * c + ch) * hw + k];
  });
  return out;
#else
  return at::sum(t4, {0, 2, 3});
#endif
}

// Indices of the 1-d floating `scores` by descending score, equal scores in index order, NaN
// first: torch.sort(scores, stable=True, descending=True)[1]. Sorted here, one implementation
// for both ABIs: the stable ABI's sort is not stable before its 2.15 headers.
inline Tensor stable_descending_order(const Tensor& scores) {
  const int64_t n = scores.size(0);
  Tensor order = api::empty({n}, kLong, scores);
  int64_t* idx = api::data<int64_t>(order);
  const Tensor s = api::contiguous(scores);
  api::dispatch_floating(s.scalar_type(), "stable_descending_order", [&](auto tag) {
    using T = decltype(tag);
    const T* v = api::data<T>(s);
    std::vector<std::pair<T, int64_t>> keyed(n);
    for (int64_t i = 0; i < n; ++i) keyed[i] = {v[i], i};
    // NaN before numbers, higher scores first, ties (and NaNs) by index: a total order, so
    // the unstable std::sort returns the stable sort's permutation.
    std::sort(keyed.begin(), keyed.end(), [](const std::pair<T, int64_t>& a, const std::pair<T, int64_t>& b) {
      const bool a_nan = std::isnan(a.first), b_nan = std::isnan(b.first);
      if (a_nan != b_nan) return a_nan;
      if (!a_nan && a.first != b.first) return a.first > b.first;
      return a.second < b.second;
    });
    for (int64_t i = 0; i < n; ++i) idx[i] = keyed[i].second;
  });
  return order;
}

}  // namespace opmatrix::api
