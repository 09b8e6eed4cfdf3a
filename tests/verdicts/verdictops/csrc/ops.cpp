// One op per verdict rule (tests/verdicts/run_verdicts.sh says which verdict each must get):
//   scale           CPU + Meta kernels that agree: passes everything (the control);
//   cuda_only       a CUDA kernel only (plus Meta), declared CUDA-only in the matrix's promises;
//   add_out         returns nothing and has no Meta kernel: it needs none (pytorch/extension-cpp's
//                   myadd_out has this shape);
//   count_positive  a CompositeImplicitAutograd kernel that reads data (.item()): it "has" a Meta
//                   kernel, yet cannot run on fake tensors;
//   wrong_fake      a Meta kernel one element longer than the CPU kernel's output: a wrong result.
// gpu_gated is defined from Python only where a GPU is visible (verdictops/__init__.py).
#include <ATen/ATen.h>
#include <Python.h>
#include <torch/library.h>

namespace {

at::Tensor scale(const at::Tensor& x, double a) { return x * a; }
at::Tensor scale_meta(const at::Tensor& x, double) { return at::empty_like(x); }

at::Tensor cuda_only(const at::Tensor& x) { return x + 1; }  // ATen calls: needs no nvcc
at::Tensor cuda_only_meta(const at::Tensor& x) { return at::empty_like(x); }

void add_out(const at::Tensor& a, const at::Tensor& b, at::Tensor& out) { out.copy_(a + b); }

at::Tensor count_positive(const at::Tensor& x) {
  const int64_t n = (x > 0).sum().item<int64_t>();  // reads the data: no fake tensor has any
  return at::zeros({n}, x.options());
}

at::Tensor wrong_fake(const at::Tensor& x) { return x.narrow(0, 0, x.size(0) - 1).clone(); }
at::Tensor wrong_fake_meta(const at::Tensor& x) { return at::empty_like(x); }  // one too many

}  // namespace

TORCH_LIBRARY(verdictops, m) {
  m.def("scale(Tensor x, float a) -> Tensor");
  m.def("cuda_only(Tensor x) -> Tensor");
  m.def("add_out(Tensor a, Tensor b, Tensor(a!) out) -> ()");
  m.def("count_positive(Tensor x) -> Tensor");
  m.def("wrong_fake(Tensor x) -> Tensor");
}

TORCH_LIBRARY_IMPL(verdictops, CPU, m) {
  m.impl("scale", &scale);
  m.impl("add_out", &add_out);
  m.impl("wrong_fake", &wrong_fake);
}

TORCH_LIBRARY_IMPL(verdictops, CUDA, m) { m.impl("cuda_only", &cuda_only); }

TORCH_LIBRARY_IMPL(verdictops, Meta, m) {
  m.impl("scale", &scale_meta);
  m.impl("cuda_only", &cuda_only_meta);
  m.impl("wrong_fake", &wrong_fake_meta);
}

TORCH_LIBRARY_IMPL(verdictops, CompositeImplicitAutograd, m) { m.impl("count_positive", &count_positive); }

// An importable module (import verdictops._C), as torch.utils.cpp_extension builds it.
PyMODINIT_FUNC PyInit__C(void) {
  static PyModuleDef module = {PyModuleDef_HEAD_INIT, "_C", nullptr, -1, nullptr};
  return PyModule_Create(&module);
}
