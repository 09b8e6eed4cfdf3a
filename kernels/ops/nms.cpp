// Schema of opmatrix::nms, exactly torchvision's (parses on torch 1.13 and later). Its fake
// kernel is Python's (kernels/python/opmatrix_ops.py), as torchvision's is: the number of kept
// boxes depends on the data, and only a Python fake kernel can make such a size.
#include "ops/fake_module.h"
#include "ops/tensor_api.h"

#ifndef OPMATRIX_STABLE_ABI  // the C++ callers (autograd and tests) are ATen code
#include "ops/nms.h"
#include "ops/typed_op.h"
#endif

namespace opmatrix {

#ifndef OPMATRIX_STABLE_ABI
at::Tensor nms(const at::Tensor& dets, const at::Tensor& scores, double iou_threshold) {
  static auto op = typed_op<decltype(nms)>("opmatrix::nms");
  return op.call(dets, scores, iou_threshold);
}
#endif

OPMATRIX_LIBRARY_FRAGMENT(m) {
  OPMATRIX_DECLARE_FAKE_MODULE(m);
  m.def("nms(Tensor dets, Tensor scores, float iou_threshold) -> Tensor");
}

}  // namespace opmatrix
