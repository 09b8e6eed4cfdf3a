// CPU kernels of boxops: plain loops over a contiguous copy, parallel over boxes.
#define TORCH_ASSERT_ONLY_METHOD_OPERATORS
#include <ATen/Dispatch.h>
#include <ATen/Parallel.h>
#include <ATen/core/Tensor.h>
#include <ATen/ops/empty.h>
#include <torch/library.h>

#include <algorithm>

#include "box_check.h"

namespace boxops {
namespace {

template <typename T>
T area(const T* b) {
  return std::max<T>(b[2] - b[0], 0) * std::max<T>(b[3] - b[1], 0);
}

at::Tensor box_area_cpu(const at::Tensor& boxes_in) {
  check_boxes(boxes_in, "boxes");
  const at::Tensor boxes = boxes_in.contiguous();
  at::Tensor out = at::empty({boxes.size(0)}, boxes.options());
  AT_DISPATCH_FLOATING_TYPES(boxes.scalar_type(), "box_area_cpu", [&] {
    const scalar_t* b = boxes.data_ptr<scalar_t>();
    scalar_t* o = out.data_ptr<scalar_t>();
    at::parallel_for(0, boxes.size(0), 4096, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) o[i] = area(b + 4 * i);
    });
  });
  return out;
}

at::Tensor box_iou_cpu(const at::Tensor& a_in, const at::Tensor& b_in) {
  check_boxes(a_in, "a");
  check_boxes(b_in, "b");
  TORCH_CHECK(a_in.scalar_type() == b_in.scalar_type(), "a and b must have one dtype");
  const at::Tensor a = a_in.contiguous(), b = b_in.contiguous();
  const int64_t n = a.size(0), m = b.size(0);
  at::Tensor out = at::empty({n, m}, a.options());
  AT_DISPATCH_FLOATING_TYPES(a.scalar_type(), "box_iou_cpu", [&] {
    const scalar_t* pa = a.data_ptr<scalar_t>();
    const scalar_t* pb = b.data_ptr<scalar_t>();
    scalar_t* o = out.data_ptr<scalar_t>();
    at::parallel_for(0, n, 64, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i)
        for (int64_t j = 0; j < m; ++j) {
          const scalar_t* x = pa + 4 * i;
          const scalar_t* y = pb + 4 * j;
          const scalar_t w = std::max<scalar_t>(std::min(x[2], y[2]) - std::max(x[0], y[0]), 0);
          const scalar_t h = std::max<scalar_t>(std::min(x[3], y[3]) - std::max(x[1], y[1]), 0);
          const scalar_t inter = w * h;
          const scalar_t uni = area(x) + area(y) - inter;
          o[i * m + j] = uni > 0 ? inter / uni : scalar_t(0);
        }
    });
  });
  return out;
}

}  // namespace

TORCH_LIBRARY_IMPL(boxops, CPU, m) {
  m.impl("box_area", TORCH_FN(box_area_cpu));
  m.impl("box_iou", TORCH_FN(box_iou_cpu));
}

}  // namespace boxops
