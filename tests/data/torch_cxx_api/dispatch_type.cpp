// Old API: an AT_DISPATCH macro given Tensor::type() (an at::DeprecatedTypeProperties).
#include <ATen/ATen.h>

void double_in_place(at::Tensor& x) {
  AT_DISPATCH_FLOATING_TYPES(x.type(), "double_in_place", [&] { x.mul_(scalar_t(2)); });
}
