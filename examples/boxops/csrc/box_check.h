// Argument checks shared by every backend, so CPU, CUDA and Meta reject the same inputs.
#pragma once

#include <ATen/core/Tensor.h>
#include <c10/util/Exception.h>

namespace boxops {

inline void check_boxes(const at::Tensor& boxes, const char* name) {
  TORCH_CHECK(boxes.dim() == 2 && boxes.size(1) == 4, name, " must be [N, 4] boxes, got ", boxes.sizes());
  TORCH_CHECK(at::isFloatingType(boxes.scalar_type()), name, " must be floating point, got ", boxes.scalar_type());
}

}  // namespace boxops
