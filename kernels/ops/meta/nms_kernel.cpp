// Meta kernel of opmatrix::nms. The number of kept boxes depends on the data, which a meta
// tensor does not have; a C++ kernel cannot make an unbacked symbolic size, so this returns
// the tightest static answer: a 1-D int64 tensor of the upper bound N (every box kept), with
// the same argument checks as the real kernels. Tracing code that needs the exact length
// must run the real kernel (torchvision does this in Python with an unbacked SymInt).
#define TORCH_ASSERT_ONLY_METHOD_OPERATORS

#include "ops/nms_check.h"
#include "ops/tensor_api.h"

namespace opmatrix {
namespace {

api::Tensor nms_meta(const api::Tensor& dets, const api::Tensor& scores, double /*iou_threshold*/) {
  nms_check(dets, scores);
  OPMATRIX_CHECK(api::is_floating(dets.scalar_type()), "nms: boxes must be floating point, got ",
              dets.scalar_type());
  return api::empty({dets.size(0)}, api::kLong, dets);
}

}  // namespace

OPMATRIX_LIBRARY_IMPL(Meta, m) {
  m.impl("nms", OPMATRIX_KERNEL(nms_meta));
}

}  // namespace opmatrix
