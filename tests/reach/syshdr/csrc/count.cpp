// Counts distinct values with a system library's hash map (libsparsehash-dev's header).
#include <google/dense_hash_set>
#include <torch/extension.h>

int64_t distinct(const at::Tensor& x) {
  google::dense_hash_set<int64_t> seen;
  seen.set_empty_key(-1);
  auto v = x.contiguous().to(at::kLong);
  for (int64_t i = 0; i < v.numel(); ++i) seen.insert(v.data_ptr<int64_t>()[i]);
  return static_cast<int64_t>(seen.size());
}

TORCH_LIBRARY(syshdr, m) { m.def("distinct(Tensor x) -> int"); }
TORCH_LIBRARY_IMPL(syshdr, CPU, m) { m.impl("distinct", distinct); }
PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {}
