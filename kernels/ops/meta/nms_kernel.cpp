// Meta kernel of opmatrix::nms. The number of kept boxes depends on the data, which a meta
// tensor does not have; a C++ kernel cannot make an unbacked symbolic size, so this returns
// the tightest static answer: a 1-D int64 tensor of the upper bound N (every box kept), with
// the same argument checks as the real kernels. Tracing code that needs the exact length
// must run the real kernel (torchvision does this in Python with an unbacked SymInt).
#define TORCH_ASSERT_ONLY_METHOD_OPERATORS
#include <ATen/core/Tensor.h>
#include <ATen/ops/empty.h>
#include <torch/library.h>

#include "ops/nms_check.h"

namespace opmatrix {
namespace {

at::Tensor nms_meta(const at::Tensor& dets, const at::Tensor& scores, double /*iou_threshold*/) {
  nms_check(dets, scores);
  TORCH_CHECK(at::isFloatingType(dets.scalar_type()), "nms: boxes must be floating point, got ",
              dets.scalar_type());
  return at::empty({dets.size(0)}, dets.options().dtype(at::kLong));
}

}  // namespace

TORCH_LIBRARY_IMPL(opmatrix, Meta, m) {
  m.impl(TORCH_SELECTIVE_NAME("opmatrix::nms"), TORCH_FN(nms_meta));
}

}  // namespace opmatrix
