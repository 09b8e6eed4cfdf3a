// opmatrix::_ms_deform_attn_backward (grad_value, grad_sampling_loc, grad_attn_weight)
// against central finite differences of the forward op in double, and .backward() through
// the Autograd kernel.
#include <ATen/ATen.h>

#include <string>
#include <vector>

#include "common/check.h"
#include "common/library.h"
#include "common/testbed.h"
#include "reference/deform_op_calls.h"
#include "reference/ms_deform_attn.h"

namespace opmatrix::cases {
namespace {

std::vector<MsDeformAttnCase> msDeformAttnCases() {
  std::vector<MsDeformAttnCase> out;
  MsDeformAttnConfig c;
  c.batch = 2; c.levels = {{4, 3}, {2, 2}}; c.heads = 2; c.channels = 3; c.queries = 3; c.points = 2;
  out.push_back({"TwoLevels", c});
  c = {};
  c.batch = 1; c.levels = {{5, 4}}; c.heads = 1; c.channels = 2; c.queries = 4; c.points = 1;
  out.push_back({"SingleLevelSinglePoint", c});
  c = {};
  c.batch = 1; c.levels = {{3, 3}, {1, 2}}; c.heads = 2; c.channels = 2; c.queries = 3; c.points = 3;
  c.loc_spread = 0.6;  // samples straddling and beyond the border
  out.push_back({"LocationsAcrossBorders", c});
  return out;
}

// Each test's inputs in double, from its own seed, and a random gradient of the output.
class MsDeformAttnGradient : public ::testing::TestWithParam<MsDeformAttnCase> {
 protected:
  MsDeformAttnInputs inputs(uint64_t seed) const {
    return reference::makeMsDeformAttnInputs(GetParam().config, at::kDouble, seed);
  }
  at::Tensor randomGradOut() const {
    const MsDeformAttnConfig& c = GetParam().config;
    return at::randn({c.batch, c.queries, c.heads * c.channels}, at::TensorOptions().dtype(at::kDouble));
  }
};

TEST_P(MsDeformAttnGradient, BackwardMatchesFiniteDifferences) {
  OPMATRIX_CHECK("ms_deform_attn", "gradient");
  OPMATRIX_REQUIRE_OPS();
  MsDeformAttnInputs in = inputs(41);
  const at::Tensor grad_out = randomGradOut();
  const auto loss = [&] { return (callMsDeformAttn(in) * grad_out).sum().item<double>(); };
  const auto grads = callMsDeformAttnBackward(grad_out, in);
  expectFiniteDifferenceGradients(loss,
                                  {{"value", &in.value, std::get<0>(grads)},
                                   {"sampling_loc", &in.sampling_loc, std::get<1>(grads)},
                                   {"attn_weight", &in.attn_weight, std::get<2>(grads)}},
                                  GetParam().config.describe());
}

TEST_P(MsDeformAttnGradient, AutogradBackwardUsesBackwardOp) {
  OPMATRIX_CHECK("ms_deform_attn", "gradient");
  OPMATRIX_REQUIRE_OPS();
  MsDeformAttnInputs in = inputs(42);
  const at::Tensor grad_out = randomGradOut();
  const auto expected = callMsDeformAttnBackward(grad_out, in);
  for (at::Tensor* t : {&in.value, &in.sampling_loc, &in.attn_weight}) t->requires_grad_(true);
  const at::Tensor out = callMsDeformAttn(in);
  ASSERT_TRUE(out.requires_grad()) << "no Autograd kernel: the output is not part of a graph";
  (out * grad_out).sum().backward();
  EXPECT_TRUE(at::allclose(in.value.grad(), std::get<0>(expected), 1e-12, 1e-12));
  EXPECT_TRUE(at::allclose(in.sampling_loc.grad(), std::get<1>(expected), 1e-12, 1e-12));
  EXPECT_TRUE(at::allclose(in.attn_weight.grad(), std::get<2>(expected), 1e-12, 1e-12));
}

// The composite is differentiable too (grid_sampler_2d's own backward): a second,
// independent check of all three gradients at DETR-like proportions.
TEST_P(MsDeformAttnGradient, BackwardMatchesCompositeAutograd) {
  OPMATRIX_CHECK("ms_deform_attn", "gradient");
  OPMATRIX_REQUIRE_OPS();
  MsDeformAttnInputs in = inputs(43);
  const at::Tensor grad_out = randomGradOut();
  const auto ours = callMsDeformAttnBackward(grad_out, in);
  for (at::Tensor* t : {&in.value, &in.sampling_loc, &in.attn_weight}) t->requires_grad_(true);
  (reference::msDeformAttn(in.value, in.spatial_shapes, in.sampling_loc, in.attn_weight) *
   grad_out).sum().backward();
  EXPECT_TRUE(at::allclose(std::get<0>(ours), in.value.grad(), 1e-10, 1e-10));
  EXPECT_TRUE(at::allclose(std::get<1>(ours), in.sampling_loc.grad(), 1e-10, 1e-10));
  EXPECT_TRUE(at::allclose(std::get<2>(ours), in.attn_weight.grad(), 1e-10, 1e-10));
}

INSTANTIATE_TEST_SUITE_P(, MsDeformAttnGradient, ::testing::ValuesIn(msDeformAttnCases()), NameOnly());

}  // namespace
}  // namespace opmatrix::cases
