// cudaonly's one op, implemented for CUDA only (csrc/twice_kernel.cu).
#include <torch/extension.h>

at::Tensor twice_cuda(const at::Tensor& x);

TORCH_LIBRARY(cudaonly, m) { m.def("twice(Tensor x) -> Tensor"); }
TORCH_LIBRARY_IMPL(cudaonly, CUDA, m) { m.impl("twice", twice_cuda); }
PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {}
