// Meta kernels of boxops: shapes, dtype and device only, so FakeTensor / torch.compile /
// export can trace the ops without running them.
#define TORCH_ASSERT_ONLY_METHOD_OPERATORS
#include <ATen/core/Tensor.h>
#include <ATen/ops/empty.h>
#include <torch/library.h>

#include "box_check.h"

namespace boxops {
namespace {

at::Tensor box_area_meta(const at::Tensor& boxes) {
  check_boxes(boxes, "boxes");
  return at::empty({boxes.size(0)}, boxes.options());
}

at::Tensor box_iou_meta(const at::Tensor& a, const at::Tensor& b) {
  check_boxes(a, "a");
  check_boxes(b, "b");
  TORCH_CHECK(a.scalar_type() == b.scalar_type(), "a and b must have one dtype");
  return at::empty({a.size(0), b.size(0)}, a.options());
}

}  // namespace

TORCH_LIBRARY_IMPL(boxops, Meta, m) {
  m.impl("box_area", TORCH_FN(box_area_meta));
  m.impl("box_iou", TORCH_FN(box_iou_meta));
}

}  // namespace boxops
