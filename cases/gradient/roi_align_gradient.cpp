// Gradient of opmatrix::roi_align with respect to its input: _roi_align_backward against
// central finite differences in double, and .backward() through the Autograd kernel.
#include <ATen/ATen.h>

#include <string>
#include <tuple>

#include "common/check.h"
#include "common/detection_inputs.h"
#include "common/detection_ops.h"
#include "common/library.h"
#include "reference/finite_difference.h"

namespace opmatrix::cases {
namespace {

// (aligned, sampling_ratio)
using Params = std::tuple<bool, int64_t>;

class RoiAlignGradient : public ::testing::TestWithParam<Params> {
 protected:
  RoiAlignArgs args() const { return {0.5, 3, 2, std::get<1>(GetParam()), std::get<0>(GetParam())}; }
};

TEST_P(RoiAlignGradient, BackwardOpMatchesFiniteDifferences) {
  OPMATRIX_CHECK("roi_align", "gradient");
  OPMATRIX_REQUIRE_OPS();
  at::Tensor input = seededRandn({2, 2, 7, 9}, 21);
  const at::Tensor rois = randomRois(8, 2, 7, 9, 0.5, 22, at::kDouble);
  const auto a = args();
  const at::Tensor weights = seededRandn({8, 2, a.pooled_height, a.pooled_width}, 23);
  const auto loss = [&] { return (callRoiAlign(input, rois, a) * weights).sum().item<double>(); };
  const at::Tensor numeric = reference::numericalGradient(loss, input);
  const at::Tensor analytic = callRoiAlignBackward(weights, rois, a, input.sizes());
  ASSERT_EQ(analytic.sizes(), input.sizes());
  EXPECT_GT(numeric.abs().sum().item<double>(), 0.0);  // the rois do reach the input
  EXPECT_TRUE(at::allclose(analytic, numeric, 1e-6, 1e-7))
      << "max |diff| " << (analytic - numeric).abs().max().item<double>();
}

TEST_P(RoiAlignGradient, AutogradBackwardUsesTheBackwardOp) {
  OPMATRIX_CHECK("roi_align", "gradient");
  OPMATRIX_REQUIRE_OPS();
  const at::Tensor input = seededRandn({2, 3, 8, 6}, 31).set_requires_grad(true);
  const at::Tensor rois = randomRois(6, 2, 8, 6, 0.5, 32, at::kDouble);
  const auto a = args();
  const at::Tensor out = callRoiAlign(input, rois, a);
  ASSERT_TRUE(out.requires_grad()) << "the Autograd kernel did not attach a grad_fn";
  const at::Tensor weights = seededRandn(out.sizes().vec(), 33);
  (out * weights).sum().backward();
  ASSERT_TRUE(input.grad().defined());
  EXPECT_TRUE(input.grad().equal(callRoiAlignBackward(weights, rois, a, input.sizes())));
}

// roi_align is linear in its input, so its backward is the adjoint:
// <roi_align(x), g> == <x, backward(g)> for any x and g — in float as well.
TEST_P(RoiAlignGradient, BackwardIsTheAdjointInFloat) {
  OPMATRIX_CHECK("roi_align", "gradient");
  OPMATRIX_REQUIRE_OPS();
  const at::Tensor x = seededRandn({2, 4, 10, 11}, 41).to(at::kFloat);
  const at::Tensor rois = randomRois(20, 2, 10, 11, 0.5, 42, at::kFloat);
  const auto a = args();
  const at::Tensor g = seededRandn({20, 4, a.pooled_height, a.pooled_width}, 43).to(at::kFloat);
  const double lhs = (callRoiAlign(x, rois, a).to(at::kDouble) * g.to(at::kDouble)).sum().item<double>();
  const double rhs = (x.to(at::kDouble) * callRoiAlignBackward(g, rois, a, x.sizes()).to(at::kDouble)).sum().item<double>();
  EXPECT_NEAR(lhs, rhs, 1e-3 * (1.0 + std::abs(lhs)));
}

std::string paramName(const ::testing::TestParamInfo<Params>& info) {
  const int64_t sr = std::get<1>(info.param);
  return std::string(std::get<0>(info.param) ? "Aligned" : "Unaligned") +
         (sr > 0 ? "_Sampling" + std::to_string(sr) : std::string("_AdaptiveSampling"));
}

INSTANTIATE_TEST_SUITE_P(, RoiAlignGradient,
                         ::testing::Combine(::testing::Bool(), ::testing::Values<int64_t>(0, 2)),
                         paramName);

}  // namespace
}  // namespace opmatrix::cases
