#include <ATen/CPUGeneratorImpl.h>
#include <ATen/core/dispatch/Dispatcher.h>

#include <cstdio>

#include "sweep.h"

namespace opmatrix_bench {

// Boxed, so torchvision's `int` and `SymInt` schemas take the same arguments.
at::Tensor call(const std::string& qualified, std::vector<c10::IValue> args) {
  const auto op = c10::Dispatcher::singleton().findSchemaOrThrow(qualified.c_str(), "");
  op.callBoxed(&args);
  return args.at(0).toTensor();
}

void proposals(int64_t n, int64_t objects, uint64_t seed, at::ScalarType dtype, at::Tensor& boxes,
               at::Tensor& scores) {
  auto gen = at::make_generator<at::CPUGeneratorImpl>(seed);
  const auto f = at::TensorOptions().dtype(at::kFloat);
  const at::Tensor centre = at::rand({objects, 2}, gen, f) * at::tensor({1088.f, 800.f});
  const at::Tensor size = 16 + at::rand({objects, 2}, gen, f) * 240;
  const at::Tensor pick = at::randint(objects, {n}, gen, at::TensorOptions().dtype(at::kLong));
  const at::Tensor c = centre.index_select(0, pick) +
      at::randn({n, 2}, gen, f) * size.index_select(0, pick) * 0.15;
  const at::Tensor s = size.index_select(0, pick) * (0.8 + 0.4 * at::rand({n, 2}, gen, f));
  boxes = at::cat({c - s / 2, c + s / 2}, 1).to(dtype).contiguous();
  scores = at::rand({n}, gen, f).to(dtype);
}

std::string format(const char* fmt, double value) {
  char text[64];
  std::snprintf(text, sizeof text, fmt, value);
  return text;
}

std::function<std::string(const at::Tensor&, const at::Tensor&, bool&)> close_within(double tol) {
  return [tol](const at::Tensor& reference, const at::Tensor& ours, bool& ok) {
    const double scale = 1 + reference.abs().max().item<double>();
    ok = at::allclose(ours, reference, tol, tol * scale);
    return format("max|diff| %.2g", (ours - reference).abs().max().item<double>());
  };
}

}  // namespace opmatrix_bench
