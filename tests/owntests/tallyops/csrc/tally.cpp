// tallyops::scaled_sum(x, scale) = x.sum() * scale: a CPU kernel and a Meta kernel, and the
// Python module `tallyops._C` that tallyops/__init__.py imports to load them.
#include <Python.h>

#include <torch/library.h>
#include <ATen/ATen.h>

namespace {

at::Tensor scaled_sum_cpu(const at::Tensor& x, double scale) { return x.sum() * scale; }

at::Tensor scaled_sum_meta(const at::Tensor& x, double) { return at::empty({}, x.options()); }

}  // namespace

TORCH_LIBRARY(tallyops, m) { m.def("scaled_sum(Tensor x, float scale) -> Tensor"); }
TORCH_LIBRARY_IMPL(tallyops, CPU, m) { m.impl("scaled_sum", &scaled_sum_cpu); }
TORCH_LIBRARY_IMPL(tallyops, Meta, m) { m.impl("scaled_sum", &scaled_sum_meta); }

extern "C" PyObject* PyInit__C(void) {
  static PyModuleDef module = {PyModuleDef_HEAD_INIT, "_C", nullptr, -1, nullptr};
  return PyModule_Create(&module);
}
