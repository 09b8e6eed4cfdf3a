// Old API: c10::isIntegralType with one argument (no includeBool).
#include <ATen/ATen.h>

bool is_integral(const at::Tensor& x) { return at::isIntegralType(x.scalar_type()); }
