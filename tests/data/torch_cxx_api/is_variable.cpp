// Old API: Tensor::is_variable() (every tensor has been a variable since torch 1.0).
#include <ATen/ATen.h>

bool is_variable(const at::Tensor& x) { return x.is_variable(); }
