// What the autograd kernels here share: torch::autograd's names, and the node of a backward
// op. Included only by ops/autograd/*.cpp, hence the using-declarations at opmatrix scope.
#pragma once

#include <torch/autograd.h>

#include <tuple>
#include <utility>

namespace opmatrix {

using torch::autograd::AutogradContext;
using torch::autograd::Variable;
using torch::autograd::variable_list;

// A backward op's result (one tensor or a tuple of them) as the list a Function returns.
inline variable_list as_variable_list(const at::Tensor& t) { return {t}; }
template <typename... Ts>
variable_list as_variable_list(const std::tuple<Ts...>& ts) {
  return std::apply([](const auto&... t) { return variable_list{t...}; }, ts);
}

// Base of the node of a backward op, which torchvision (and so opmatrix) differentiates only
// once. Self names the op (`static constexpr auto run = &detail::_op_backward;`) and the
// refusal (`kDoubleBackwardError`); forward runs the op below Autograd, backward refuses.
// Self stays the node's own class, so the node keeps its name in autograd graphs.
template <typename Self>
class OnceDifferentiable : public torch::autograd::Function<Self> {
 public:
  template <typename... Args>
  static variable_list forward(AutogradContext* /*ctx*/, const Args&... args) {
    at::AutoDispatchBelowADInplaceOrView below_autograd;
    return as_variable_list(Self::run(args...));
  }

  static variable_list backward(AutogradContext* /*ctx*/, const variable_list& /*grad_output*/) {
    TORCH_CHECK(false, Self::kDoubleBackwardError);
  }
};

}  // namespace opmatrix
