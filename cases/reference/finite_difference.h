// Central finite differences of a scalar function of one tensor, in double, element by
// element: the independent side of every gradient case.
#pragma once

#include <ATen/core/Tensor.h>

#include <functional>

namespace opmatrix::reference {

// d loss / d x at x, where loss() reads x (a contiguous double CPU tensor) and x is
// perturbed in place by +-eps (and restored) for each element.
at::Tensor numericalGradient(const std::function<double()>& loss, at::Tensor& x, double eps = 1e-6);

}  // namespace opmatrix::reference
