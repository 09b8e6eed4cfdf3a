// wfops::scale(x, s) = x * s: a CPU and a Meta kernel, its schema tagged pt2_compliant (at::Tag
// exists from torch 2.1 on), and the Python module `wfops._C` that wfops/__init__.py imports.
#include <Python.h>

#include <ATen/ATen.h>
#include <torch/library.h>

namespace {

at::Tensor scale_cpu(const at::Tensor& x, double s) { return x * s; }

at::Tensor scale_meta(const at::Tensor& x, double) { return at::empty_like(x); }

}  // namespace

TORCH_LIBRARY(wfops, m) { m.def("scale(Tensor x, float s) -> Tensor", {at::Tag::pt2_compliant_tag}); }
TORCH_LIBRARY_IMPL(wfops, CPU, m) { m.impl("scale", &scale_cpu); }
TORCH_LIBRARY_IMPL(wfops, Meta, m) { m.impl("scale", &scale_meta); }

extern "C" PyObject* PyInit__C(void) {
  static PyModuleDef module = {PyModuleDef_HEAD_INIT, "_C", nullptr, -1, nullptr};
  return PyModule_Create(&module);
}
