// Argument checks shared by every nms kernel (CPU, CUDA, Meta), so that all backends reject
// the same inputs with the same messages (torchvision's wording).
#pragma once

#include "ops/tensor_api.h"

namespace opmatrix {

inline void nms_check(const api::Tensor& dets, const api::Tensor& scores) {
  OPMATRIX_CHECK(dets.dim() == 2, "boxes should be a 2d tensor, got ", dets.dim(), "D");
  OPMATRIX_CHECK(dets.size(1) == 4, "boxes should have 4 elements in dimension 1, got ", dets.size(1));
  OPMATRIX_CHECK(scores.dim() == 1, "scores should be a 1d tensor, got ", scores.dim(), "D");
  OPMATRIX_CHECK(dets.size(0) == scores.size(0),
              "boxes and scores should have same number of elements in dimension 0, got ",
              dets.size(0), " and ", scores.size(0));
  OPMATRIX_CHECK(dets.scalar_type() == scores.scalar_type(),
              "boxes and scores should have the same dtype, got ", dets.scalar_type(), " and ",
              scores.scalar_type());
  OPMATRIX_CHECK(api::same_device(dets, scores),
              "boxes and scores should be on the same device, got ", api::device_text(dets), " and ",
              api::device_text(scores));
}

}  // namespace opmatrix
