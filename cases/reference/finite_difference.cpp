#include "reference/finite_difference.h"

#include <ATen/ATen.h>

namespace opmatrix::reference {

at::Tensor numericalGradient(const std::function<double()>& loss, at::Tensor& x, double eps) {
  TORCH_CHECK(x.scalar_type() == at::kDouble && x.is_contiguous() && x.device().is_cpu(),
              "numericalGradient: x must be a contiguous double CPU tensor");
  at::Tensor grad = at::zeros_like(x);
  double* data = x.data_ptr<double>();
  double* g = grad.data_ptr<double>();
  for (int64_t i = 0; i < x.numel(); ++i) {
    const double saved = data[i];
    data[i] = saved + eps;
    const double up = loss();
    data[i] = saved - eps;
    const double down = loss();
    data[i] = saved;
    g[i] = (up - down) / (2 * eps);
  }
  return grad;
}

}  // namespace opmatrix::reference
