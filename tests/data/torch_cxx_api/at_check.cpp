// Old API: the AT_CHECK macro.
#include <ATen/ATen.h>

void check_matrix(const at::Tensor& x) { AT_CHECK(x.dim() == 2, "x must be a matrix"); }
