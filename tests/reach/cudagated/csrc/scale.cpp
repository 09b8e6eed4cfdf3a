// cudagated::scale_boxes, CUDA only: the kernel is in scale_kernel.cu.
#include <Python.h>

#include <ATen/core/Tensor.h>
#include <torch/library.h>

at::Tensor scale_boxes_cuda(const at::Tensor& boxes, double factor);

TORCH_LIBRARY(cudagated, m) { m.def("scale_boxes(Tensor boxes, float factor) -> Tensor"); }
TORCH_LIBRARY_IMPL(cudagated, CUDA, m) { m.impl("scale_boxes", scale_boxes_cuda); }

static PyModuleDef gated_module = {PyModuleDef_HEAD_INIT, "_C", "cudagated's CUDA ops", -1, nullptr};
PyMODINIT_FUNC PyInit__C() { return PyModule_Create(&gated_module); }
