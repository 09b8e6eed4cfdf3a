// The fixtures every case family shares (CUTLASS test/unit's testbed, for ops called through
// the dispatcher): named configurations and the dtypes tests are instantiated over, with the
// test-name generators that turn them into gtest names; closeness of two tensors; the meta
// device's contract (sizes, dtype, device, layout of a CPU result); and analytic gradients
// against central finite differences. Test names come from here, and the harness attributes
// results by name (suite <Op><Check>, harness/src/results/test_outcomes.cpp): a change to a
// generator renames tests in every cell's results.
#pragma once

#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <string>
#include <tuple>
#include <vector>

namespace opmatrix::cases {

// One configuration of an op's arguments (reference::DeformConv2dConfig, …) and the name its
// tests carry: MatchesReference/<name>_<dtype>.
template <class Config>
struct Named {
  std::string name;
  Config config;
};

// The dtypes CPU cases run in, and those a CUDA kernel is compared in (16-bit types against
// a float CPU result).
inline auto cpuDtypes() { return ::testing::Values(at::kFloat, at::kDouble); }
inline auto deviceDtypes() { return ::testing::Values(at::kFloat, at::kDouble, at::kHalf, at::kBFloat16); }

// Every named configuration in every CPU dtype: the parameters of TestWithParam<NamedInDtype<C>>.
template <class Config>
using NamedInDtype = std::tuple<Named<Config>, at::ScalarType>;
template <class Config>
auto namedInCpuDtypes(const std::vector<Named<Config>>& named) {
  return ::testing::Combine(::testing::ValuesIn(named), cpuDtypes());
}

// The fixture of a suite parameterised by NamedInDtype<Config> (derive the suite's own
// <Op><Check> class from it): the parameter's configuration and dtype.
template <class Config>
class NamedInDtypeTest : public ::testing::TestWithParam<NamedInDtype<Config>> {
 protected:
  const Config& config() const { return std::get<0>(this->GetParam()).config; }
  at::ScalarType dtype() const { return std::get<1>(this->GetParam()); }
};

// Test-name generators for INSTANTIATE_TEST_SUITE_P: "Float"; "<name>_Float"; "<name>".
struct DtypeName {
  std::string operator()(const ::testing::TestParamInfo<at::ScalarType>& info) const {
    return c10::toString(info.param);
  }
};
struct NamedDtypeName {
  template <class Config>
  std::string operator()(const ::testing::TestParamInfo<NamedInDtype<Config>>& info) const {
    return std::get<0>(info.param).name + "_" + c10::toString(std::get<1>(info.param));
  }
};
struct NameOnly {
  template <class Config>
  std::string operator()(const ::testing::TestParamInfo<Named<Config>>& info) const {
    return info.param.name;
  }
};

// half and bfloat16: compared against a float CPU result, with their own tolerance.
inline bool isSixteenBit(at::ScalarType t) { return t == at::kHalf || t == at::kBFloat16; }

// Same sizes and dtype (fatal), then at::allclose(actual, expected, rtol, atol); `what`
// and the largest difference in the failure message.
void expectClose(const at::Tensor& actual, const at::Tensor& expected, double rtol, double atol,
                 const std::string& what);

// A tensor of t's sizes and options on the meta device: what FakeTensor passes a Meta kernel.
at::Tensor toMeta(const at::Tensor& t);

// A Meta kernel's result against the CPU kernel's: on the meta device, same sizes, same dtype.
void expectMetaOf(const at::Tensor& meta, const at::Tensor& cpu);
// The same, plus the same contiguity, with `what` in every failure message.
void expectSameMeta(const at::Tensor& meta, const at::Tensor& cpu, const std::string& what);
// expectSameMeta for each of several outputs, named by `what` (same order).
void expectSameMeta(const std::vector<at::Tensor>& meta, const std::vector<at::Tensor>& cpu,
                    const std::vector<std::string>& what);

// The elements of a tuple of tensors (a backward op's outputs), in order.
template <class... Tensors>
std::vector<at::Tensor> tensorList(const std::tuple<Tensors...>& outputs) {
  return std::apply([](const auto&... t) { return std::vector<at::Tensor>{t...}; }, outputs);
}

// One differentiable argument: `tensor` is perturbed in place by the finite differences,
// `analytic` is the backward op's gradient for it.
struct GradientArg {
  std::string name;
  at::Tensor* tensor;
  at::Tensor analytic;
};
// For each argument in order: the analytic gradient has the numeric one's sizes (fatal) and
// is allclose to it (rtol 1e-5, atol 1e-6); `describe` (the configuration) in the message.
void expectFiniteDifferenceGradients(const std::function<double()>& loss,
                                     const std::vector<GradientArg>& args,
                                     const std::string& describe);

}  // namespace opmatrix::cases
