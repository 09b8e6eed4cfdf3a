// Meta kernel of opmatrix::nms, only where the build cannot point torch at nms's Python fake
// kernel (OPMATRIX_FAKE_MODULE_DECLARED 0: torch older than 2.2, or a stable-ABI build that
// targets a torch older than 2.13). The number of kept boxes depends on the boxes' values, which
// meta tensors do not have, and a C++ kernel cannot make an unbacked symbolic size: any size
// given here would be a guess that tracing then builds on (the upper bound N made torch.compile
// return N boxes where eager returns fewer). So it checks the arguments like every backend and
// then refuses, in words. Elsewhere there is no C++ Meta kernel: torch would refuse the Python
// fake kernel next to one.
#define TORCH_ASSERT_ONLY_METHOD_OPERATORS

#include "ops/nms_check.h"
#include "ops/fake_module.h"
#include "ops/tensor_api.h"

#if !OPMATRIX_FAKE_MODULE_DECLARED
namespace opmatrix {
namespace {

api::Tensor nms_meta(const api::Tensor& dets, const api::Tensor& scores, double /*iou_threshold*/) {
  nms_check(dets, scores);
  OPMATRIX_CHECK(api::is_floating(dets.scalar_type()), "nms: boxes must be floating point, got ",
                 dets.scalar_type());
  OPMATRIX_CHECK(false, "opmatrix::nms on meta tensors: the number of boxes it keeps depends on the boxes' "
                 "values, which meta tensors do not have, and this build of libopmatrix_ops cannot point torch "
                 "at nms's Python fake kernel (module " OPMATRIX_FAKE_MODULE "; needs torch >= 2.2, or "
                 "TORCH_TARGET_VERSION >= 2.13 for the stable ABI). Run nms on real tensors.");
  return dets;  // not reached
}

}  // namespace

OPMATRIX_LIBRARY_IMPL(Meta, m) {
  m.impl("nms", OPMATRIX_KERNEL(nms_meta));
}

}  // namespace opmatrix
#endif
