// Argument checks shared by every nms kernel (CPU, CUDA, Meta), so that all backends reject
// the same inputs with the same messages (torchvision's wording).
#pragma once

#include <ATen/core/Tensor.h>
#include <c10/util/Exception.h>

namespace opmatrix {

inline void nms_check(const at::Tensor& dets, const at::Tensor& scores) {
  TORCH_CHECK(dets.dim() == 2, "boxes should be a 2d tensor, got ", dets.dim(), "D");
  TORCH_CHECK(dets.size(1) == 4, "boxes should have 4 elements in dimension 1, got ", dets.size(1));
  TORCH_CHECK(scores.dim() == 1, "scores should be a 1d tensor, got ", scores.dim(), "D");
  TORCH_CHECK(dets.size(0) == scores.size(0),
              "boxes and scores should have same number of elements in dimension 0, got ",
              dets.size(0), " and ", scores.size(0));
  TORCH_CHECK(dets.scalar_type() == scores.scalar_type(),
              "boxes and scores should have the same dtype, got ", dets.scalar_type(), " and ",
              scores.scalar_type());
  TORCH_CHECK(dets.device() == scores.device(),
              "boxes and scores should be on the same device, got ", dets.device(), " and ",
              scores.device());
}

}  // namespace opmatrix
