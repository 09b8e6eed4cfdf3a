// Schema of opmatrix::nms, exactly torchvision's (parses on torch 1.13 and later).
#include "ops/nms.h"

#include <ATen/core/dispatch/Dispatcher.h>
#include <torch/library.h>

namespace opmatrix {

at::Tensor nms(const at::Tensor& dets, const at::Tensor& scores, double iou_threshold) {
  static auto op = c10::Dispatcher::singleton()
                       .findSchemaOrThrow("opmatrix::nms", "")
                       .typed<decltype(nms)>();
  return op.call(dets, scores, iou_threshold);
}

TORCH_LIBRARY_FRAGMENT(opmatrix, m) {
  m.def(TORCH_SELECTIVE_SCHEMA(
      "opmatrix::nms(Tensor dets, Tensor scores, float iou_threshold) -> Tensor"));
}

}  // namespace opmatrix
