// Old API: the deprecated AT_DISPATCH_ALL_TYPES_AND_HALF macro.
#include <ATen/ATen.h>

void double_in_place(at::Tensor& x) {
  AT_DISPATCH_ALL_TYPES_AND_HALF(x.scalar_type(), "double_in_place", [&] { x.mul_(scalar_t(2)); });
}
