// reachops' ops: double_it by schema string (CPU and Meta kernels), half_it by function pointer
// (the dispatcher infers its schema from the C++ signature: a catch-all kernel, no schema text),
// abi_version() -> int, a query of the build with no tensor in or out (torch_cluster's
// cuda_version): nothing for compile or export to trace.
// A plain Python extension module (PyInit__C), so that `import reachops._C` registers them.
#include <Python.h>

#include <ATen/core/Tensor.h>
#include <ATen/ops/empty_like.h>
#include <ATen/ops/mul.h>
#include <torch/library.h>

namespace {

at::Tensor double_it(const at::Tensor& x) { return at::mul(x, 2); }
at::Tensor double_it_meta(const at::Tensor& x) { return at::empty_like(x); }
at::Tensor half_it(const at::Tensor& x) { return at::mul(x, 0.5); }
int64_t abi_version() { return 1; }

}  // namespace

TORCH_LIBRARY(reachops, m) {
  m.def("double_it(Tensor x) -> Tensor");
  m.def("half_it", &half_it);
  m.def("abi_version", &abi_version);
}
TORCH_LIBRARY_IMPL(reachops, CPU, m) { m.impl("double_it", double_it); }
TORCH_LIBRARY_IMPL(reachops, Meta, m) { m.impl("double_it", double_it_meta); }

static PyModuleDef reach_module = {PyModuleDef_HEAD_INIT, "_C", "reachops' compiled ops", -1, nullptr};
PyMODINIT_FUNC PyInit__C() { return PyModule_Create(&reach_module); }
