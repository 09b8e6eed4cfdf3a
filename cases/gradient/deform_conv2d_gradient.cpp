// opmatrix::_deform_conv2d_backward (all five outputs) against central finite differences
// of the forward op in double, and .backward() through the Autograd kernel.
#include <ATen/ATen.h>

#include <string>
#include <vector>

#include "common/check.h"
#include "common/library.h"
#include "common/testbed.h"
#include "reference/deform_conv2d.h"
#include "reference/deform_op_calls.h"

namespace opmatrix::cases {
namespace {

std::vector<DeformConv2dCase> deformConv2dCases() {
  std::vector<DeformConv2dCase> out;
  DeformConv2dConfig c;
  c.batch = 2; c.in_channels = 2; c.out_channels = 3; c.in_h = 4; c.in_w = 5;
  out.push_back({"Mask", c});
  c.use_mask = false;
  out.push_back({"NoMask", c});
  c = {};
  c.batch = 1; c.in_channels = 4; c.out_channels = 2; c.in_h = 6; c.in_w = 5; c.kernel_h = 2;
  c.kernel_w = 3; c.stride_h = 2; c.pad_w = 2; c.dilation_w = 2; c.groups = 2; c.offset_groups = 2;
  out.push_back({"GroupsStrideDilation", c});
  c = {};
  c.batch = 1; c.in_channels = 2; c.out_channels = 2; c.in_h = 3; c.in_w = 4; c.offset_scale = 4.0;
  out.push_back({"OffsetsAcrossBorders", c});
  return out;
}

// Each test's inputs in double, from its own seed, and a random gradient of the output.
class DeformConv2dGradient : public ::testing::TestWithParam<DeformConv2dCase> {
 protected:
  const DeformConv2dConfig& config() const { return GetParam().config; }
  DeformConv2dInputs inputs(uint64_t seed) const {
    return reference::makeDeformConv2dInputs(config(), at::kDouble, seed);
  }
  at::Tensor randomGradOut() const {
    const DeformConv2dConfig& c = config();
    return at::randn({c.batch, c.out_channels, c.outH(), c.outW()}, at::TensorOptions().dtype(at::kDouble));
  }
};

TEST_P(DeformConv2dGradient, BackwardMatchesFiniteDifferences) {
  OPMATRIX_CHECK("deform_conv2d", "gradient");
  OPMATRIX_REQUIRE_OPS();
  const DeformConv2dConfig& c = config();
  DeformConv2dInputs in = inputs(31);
  const at::Tensor grad_out = randomGradOut();
  const auto loss = [&] { return (callDeformConv2d(in, c) * grad_out).sum().item<double>(); };
  const auto grads = callDeformConv2dBackward(grad_out, in, c);
  std::vector<GradientArg> args{{"input", &in.input, std::get<0>(grads)},
                                {"weight", &in.weight, std::get<1>(grads)},
                                {"offset", &in.offset, std::get<2>(grads)},
                                {"bias", &in.bias, std::get<4>(grads)}};
  if (c.use_mask) args.push_back({"mask", &in.mask, std::get<3>(grads)});
  else EXPECT_EQ(std::get<3>(grads).sizes(), in.mask.sizes()) << "grad_mask without a mask";
  expectFiniteDifferenceGradients(loss, args, c.describe());
}

// loss.backward() through the Autograd kernel gives the backward op's gradients, for every
// differentiable input.
TEST_P(DeformConv2dGradient, AutogradBackwardUsesBackwardOp) {
  OPMATRIX_CHECK("deform_conv2d", "gradient");
  OPMATRIX_REQUIRE_OPS();
  const DeformConv2dConfig& c = config();
  DeformConv2dInputs in = inputs(32);
  const at::Tensor grad_out = randomGradOut();
  const auto expected = callDeformConv2dBackward(grad_out, in, c);
  for (at::Tensor* t : {&in.input, &in.weight, &in.offset, &in.mask, &in.bias}) t->requires_grad_(true);
  const at::Tensor out = callDeformConv2d(in, c);
  ASSERT_TRUE(out.requires_grad()) << "no Autograd kernel: the output is not part of a graph";
  (out * grad_out).sum().backward();
  EXPECT_TRUE(at::allclose(in.input.grad(), std::get<0>(expected), 1e-12, 1e-12));
  EXPECT_TRUE(at::allclose(in.weight.grad(), std::get<1>(expected), 1e-12, 1e-12));
  EXPECT_TRUE(at::allclose(in.offset.grad(), std::get<2>(expected), 1e-12, 1e-12));
  EXPECT_TRUE(at::allclose(in.bias.grad(), std::get<4>(expected), 1e-12, 1e-12));
  if (c.use_mask) EXPECT_TRUE(at::allclose(in.mask.grad(), std::get<3>(expected), 1e-12, 1e-12));
}

INSTANTIATE_TEST_SUITE_P(, DeformConv2dGradient, ::testing::ValuesIn(deformConv2dCases()), NameOnly());

TEST_F(DeformConv2dGradient, DoubleBackwardIsRefused) {
  OPMATRIX_CHECK("deform_conv2d", "gradient");
  OPMATRIX_REQUIRE_OPS();
  DeformConv2dConfig c;
  DeformConv2dInputs in = reference::makeDeformConv2dInputs(c, at::kDouble, 33);
  in.input.requires_grad_(true);
  const at::Tensor grad_out = at::ones({c.batch, c.out_channels, c.outH(), c.outW()}, in.input.options());
  const auto grads = callDeformConv2dBackward(grad_out, in, c);
  EXPECT_THROW(std::get<1>(grads).sum().backward(), c10::Error);
}

}  // namespace
}  // namespace opmatrix::cases
