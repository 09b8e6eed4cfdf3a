// Schema of opmatrix::nms, exactly torchvision's (parses on torch 1.13 and later).
#include "ops/tensor_api.h"

#ifndef OPMATRIX_STABLE_ABI  // the C++ callers (autograd and tests) are ATen code
#include <ATen/core/dispatch/Dispatcher.h>

#include "ops/nms.h"
#endif

namespace opmatrix {

#ifndef OPMATRIX_STABLE_ABI
at::Tensor nms(const at::Tensor& dets, const at::Tensor& scores, double iou_threshold) {
  static auto op = c10::Dispatcher::singleton()
                       .findSchemaOrThrow("opmatrix::nms", "")
                       .typed<decltype(nms)>();
  return op.call(dets, scores, iou_threshold);
}
#endif

OPMATRIX_LIBRARY_FRAGMENT(m) {
  m.def("nms(Tensor dets, Tensor scores, float iou_threshold) -> Tensor");
}

}  // namespace opmatrix
