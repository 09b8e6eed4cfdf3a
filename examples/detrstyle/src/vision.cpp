// DetrStyleOps: a pybind11-only extension in the shape of Deformable-DETR's MultiScaleDeformableAttention
// (no TORCH_LIBRARY: the op is a plain Python function of the module, torch.ops knows nothing of it).
#include <torch/extension.h>

#include "ms_sum.h"

namespace detrstyle {

at::Tensor ms_sum(const at::Tensor& value) {
  if (value.is_cuda()) {
#ifdef WITH_CUDA
    return ms_sum_cuda(value);
#else
    TORCH_CHECK(false, "DetrStyleOps was built without CUDA");
#endif
  }
  return ms_sum_cpu(value);
}

}  // namespace detrstyle

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.def("ms_sum", &detrstyle::ms_sum, "sum of value [N, S, M, D] over S -> [N, M, D]", pybind11::arg("value"));
}
