#include <ATen/ATen.h>
#include <ATen/Dispatch.h>

#include "ms_sum.h"

namespace detrstyle {

at::Tensor ms_sum_cpu(const at::Tensor& value_in) {
  TORCH_CHECK(value_in.dim() == 4, "ms_sum: value must be [N, S, M, D], got ", value_in.dim(), " dimensions");
  const at::Tensor value = value_in.contiguous();
  const int64_t n = value.size(0), s = value.size(1), md = value.size(2) * value.size(3);
  at::Tensor out = at::zeros({value.size(0), value.size(2), value.size(3)}, value.options());
  AT_DISPATCH_FLOATING_TYPES(value.scalar_type(), "ms_sum_cpu", [&] {
    const scalar_t* src = value.data_ptr<scalar_t>();
    scalar_t* dst = out.data_ptr<scalar_t>();
    for (int64_t b = 0; b < n; ++b)
      for (int64_t p = 0; p < s; ++p)
        for (int64_t k = 0; k < md; ++k) dst[b * md + k] += src[(b * s + p) * md + k];
  });
  return out;
}

}  // namespace detrstyle
