// DetrStyleOps: ms_sum(value) sums a Deformable-DETR-shaped value tensor [N, S, M, D]
// (batch, spatial positions of all levels, heads, channels per head) over S -> [N, M, D].
#pragma once

#include <ATen/core/Tensor.h>

namespace detrstyle {

at::Tensor ms_sum_cpu(const at::Tensor& value);
#ifdef WITH_CUDA
at::Tensor ms_sum_cuda(const at::Tensor& value);
#endif

}  // namespace detrstyle
