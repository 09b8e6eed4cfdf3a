// Two ops with one schema shape each; bad_shape's Meta kernel lies about its output size.
#include <ATen/core/Tensor.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/mul.h>
#include <torch/library.h>

namespace {

at::Tensor doubled(const at::Tensor& x) { return at::mul(x, 2); }

at::Tensor doubled_meta(const at::Tensor& x) { return at::empty({x.size(0)}, x.options()); }

// The fault: one element too many, as an upper-bound or off-by-one Meta kernel has.
at::Tensor one_too_many_meta(const at::Tensor& x) { return at::empty({x.size(0) + 1}, x.options()); }

}  // namespace

TORCH_LIBRARY(faultmeta, m) {
  m.def("good_shape(Tensor x) -> Tensor");
  m.def("bad_shape(Tensor x) -> Tensor");
}

TORCH_LIBRARY_IMPL(faultmeta, CPU, m) {
  m.impl("good_shape", doubled);
  m.impl("bad_shape", doubled);
}

TORCH_LIBRARY_IMPL(faultmeta, Meta, m) {
  m.impl("good_shape", doubled_meta);
  m.impl("bad_shape", one_too_many_meta);
}
