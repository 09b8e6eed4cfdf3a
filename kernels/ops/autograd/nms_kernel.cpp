// Autograd kernel of opmatrix::nms. NMS returns indices, which have no gradient; registering
// the Autograd key explicitly (redispatching below autograd) makes that a decision rather
// than an accident of the fallback, and lets the registration check treat every op alike.
#define TORCH_ASSERT_ONLY_METHOD_OPERATORS
#include <ATen/core/Tensor.h>
#include <ATen/core/LegacyTypeDispatch.h>
#include <torch/library.h>

#include "ops/nms.h"

namespace opmatrix {
namespace {

at::Tensor nms_autograd(const at::Tensor& dets, const at::Tensor& scores, double iou_threshold) {
  at::AutoDispatchBelowADInplaceOrView below_autograd;
  // int64 output: autograd cannot attach a grad_fn to it, so it is non-differentiable.
  return opmatrix::nms(dets, scores, iou_threshold);
}

}  // namespace

TORCH_LIBRARY_IMPL(opmatrix, Autograd, m) {
  m.impl(TORCH_SELECTIVE_NAME("opmatrix::nms"), TORCH_FN(nms_autograd));
}

}  // namespace opmatrix
