// skbuildops::triple, CPU and Meta kernels; a plain Python extension module (PyInit__C), so that
// `import skbuildops` (which imports ._C) registers it.
#include <Python.h>

#include <ATen/core/Tensor.h>
#include <ATen/ops/empty_like.h>
#include <ATen/ops/mul.h>
#include <torch/library.h>

namespace {
at::Tensor triple(const at::Tensor& x) { return at::mul(x, 3); }
at::Tensor triple_meta(const at::Tensor& x) { return at::empty_like(x); }
}  // namespace

TORCH_LIBRARY(skbuildops, m) { m.def("triple(Tensor x) -> Tensor"); }
TORCH_LIBRARY_IMPL(skbuildops, CPU, m) { m.impl("triple", triple); }
TORCH_LIBRARY_IMPL(skbuildops, Meta, m) { m.impl("triple", triple_meta); }

static PyModuleDef skbuild_module = {PyModuleDef_HEAD_INIT, "_C", "skbuildops' compiled ops", -1, nullptr};
PyMODINIT_FUNC PyInit__C() { return PyModule_Create(&skbuild_module); }
