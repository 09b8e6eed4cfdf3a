// opmatrix::deform_conv2d forward against the independent reference
// (cases/reference/deform_conv2d.cpp), on the CPU; and CPU against CUDA where a GPU is usable.
#include <ATen/ATen.h>

#include <string>
#include <vector>

#include "common/check.h"
#include "common/cuda.h"
#include "common/library.h"
#include "common/testbed.h"
#include "reference/deform_conv2d.h"
#include "reference/deform_op_calls.h"

namespace opmatrix::cases {
namespace {

std::vector<DeformConv2dCase> deformConv2dCases() {
  std::vector<DeformConv2dCase> out;
  out.push_back({"Basic3x3Pad1", {}});
  DeformConv2dConfig c;
  c.use_mask = false;
  out.push_back({"NoMask", c});
  c = {};
  c.in_h = 7; c.in_w = 9; c.kernel_h = 3; c.kernel_w = 2;
  c.stride_h = 2; c.stride_w = 1; c.pad_h = 0; c.pad_w = 2; c.dilation_h = 2; c.dilation_w = 1;
  out.push_back({"OddSizesStridePadDilation", c});
  c = {};
  c.in_channels = 8; c.out_channels = 6; c.groups = 2; c.offset_groups = 4;
  out.push_back({"GroupsAndOffsetGroups", c});
  c = {};
  c.in_channels = 6; c.out_channels = 9; c.groups = 3; c.offset_groups = 3; c.use_mask = false;
  c.stride_h = 1; c.stride_w = 2;
  out.push_back({"ThreeGroupsNoMask", c});
  c = {};
  c.in_channels = 6; c.out_channels = 4; c.groups = 1; c.offset_groups = 2; c.in_h = 5; c.in_w = 5;
  c.kernel_h = 1; c.kernel_w = 1; c.pad_h = 0; c.pad_w = 0;
  out.push_back({"OneByOneKernel", c});
  c = {};
  c.offset_scale = 12.0;  // most samples fall outside the image or straddle its border
  out.push_back({"OffsetsMostlyOutside", c});
  c = {};
  c.batch = 1; c.in_h = 1; c.in_w = 1; c.pad_h = 1; c.pad_w = 1;
  out.push_back({"SinglePixelInput", c});
  c = {};
  c.batch = 3; c.in_channels = 16; c.out_channels = 8; c.in_h = 13; c.in_w = 11; c.kernel_h = 3;
  c.kernel_w = 3; c.pad_h = 2; c.pad_w = 2; c.dilation_h = 2; c.dilation_w = 2;  // > 64 positions
  c.offset_groups = 2;
  out.push_back({"LargerThanOneTile", c});
  return out;
}

class DeformConv2dCorrectness : public NamedInDtypeTest<DeformConv2dConfig> {};

TEST_P(DeformConv2dCorrectness, MatchesReference) {
  OPMATRIX_CHECK("deform_conv2d", "correctness");
  OPMATRIX_REQUIRE_OPS();
  const DeformConv2dInputs in = reference::makeDeformConv2dInputs(config(), dtype(), 1234);
  const at::Tensor expected = reference::deformConv2d(in, config());
  const at::Tensor actual = callDeformConv2d(in, config());
  const double tol = dtype() == at::kDouble ? 1e-10 : 1e-4;
  expectClose(actual, expected, tol, tol, config().describe());
}

// Empty instantiation prefix: the suite is named exactly <Op><Check>, which is how the
// harness attributes a test that crashed before writing its JSON.
INSTANTIATE_TEST_SUITE_P(, DeformConv2dCorrectness, namedInCpuDtypes(deformConv2dCases()), NamedDtypeName());

// Zero offsets and a mask of ones turn deform_conv2d into an ordinary convolution:
// checks the sampling grid, padding and the tap order against ATen's conv2d.
TEST_F(DeformConv2dCorrectness, ZeroOffsetsEqualConv2d) {
  OPMATRIX_CHECK("deform_conv2d", "correctness");
  OPMATRIX_REQUIRE_OPS();
  DeformConv2dConfig c;
  c.in_channels = 6; c.out_channels = 4; c.groups = 2; c.offset_groups = 3;
  c.stride_h = 2; c.pad_w = 2; c.dilation_w = 2; c.in_h = 8; c.in_w = 11;
  DeformConv2dInputs in = reference::makeDeformConv2dInputs(c, at::kDouble, 7);
  in.offset.zero_();
  in.mask.fill_(1.0);
  const at::Tensor expected = at::conv2d(in.input, in.weight, in.bias, {c.stride_h, c.stride_w},
                                         {c.pad_h, c.pad_w}, {c.dilation_h, c.dilation_w}, c.groups);
  expectClose(callDeformConv2d(in, c), expected, 1e-10, 1e-10, c.describe());
}

// Samples exactly on pixel centres, half-way between them, on the border rows/columns, at
// -1 / H (just outside: contributes 0) and at -0.5 / H - 0.5 (half outside).
TEST_F(DeformConv2dCorrectness, SamplesOnAndAcrossBorders) {
  OPMATRIX_CHECK("deform_conv2d", "correctness");
  OPMATRIX_REQUIRE_OPS();
  DeformConv2dConfig c;
  c.batch = 1; c.in_channels = 2; c.out_channels = 3; c.in_h = 4; c.in_w = 5;
  c.kernel_h = 1; c.kernel_w = 1; c.pad_h = 0; c.pad_w = 0;
  DeformConv2dInputs in = reference::makeDeformConv2dInputs(c, at::kDouble, 11);
  const std::vector<double> shifts{-5.0, -4.0, -1.0, -0.5, 0.0, 0.5, 1.0, 3.5, 4.0, 4.5};
  for (double sy : shifts) {
    for (double sx : shifts) {
      in.offset.select(1, 0).fill_(sy);
      in.offset.select(1, 1).fill_(sx);
      const at::Tensor expected = reference::deformConv2d(in, c);
      expectClose(callDeformConv2d(in, c), expected, 1e-12, 1e-12,
                  "offset (" + std::to_string(sy) + ", " + std::to_string(sx) + ")");
    }
  }
  // Fully outside everywhere: only the bias remains.
  in.offset.fill_(-10.0);
  const at::Tensor out = callDeformConv2d(in, c);
  expectClose(out, in.bias.view({1, -1, 1, 1}).expand_as(out), 0, 0, "all samples outside");
}

TEST_F(DeformConv2dCorrectness, EmptyBatch) {
  OPMATRIX_CHECK("deform_conv2d", "correctness");
  OPMATRIX_REQUIRE_OPS();
  DeformConv2dConfig c;
  c.batch = 0;
  const DeformConv2dInputs in = reference::makeDeformConv2dInputs(c, at::kFloat, 3);
  const at::Tensor out = callDeformConv2d(in, c);
  EXPECT_EQ(out.sizes(), (std::vector<int64_t>{0, c.out_channels, c.outH(), c.outW()}));
  const auto grads = callDeformConv2dBackward(at::zeros_like(out), in, c);
  EXPECT_EQ(std::get<0>(grads).sizes(), in.input.sizes());
  EXPECT_EQ(std::get<1>(grads).sizes(), in.weight.sizes());
  EXPECT_EQ(std::get<1>(grads).abs().sum().item<double>(), 0.0);
  EXPECT_EQ(std::get<4>(grads).sizes(), in.bias.sizes());
}

TEST_F(DeformConv2dCorrectness, RejectsInconsistentShapes) {
  OPMATRIX_CHECK("deform_conv2d", "correctness");
  OPMATRIX_REQUIRE_OPS();
  DeformConv2dConfig c;
  DeformConv2dInputs in = reference::makeDeformConv2dInputs(c, at::kFloat, 5);
  DeformConv2dInputs bad = in;
  bad.offset = in.offset.narrow(1, 0, in.offset.size(1) - 2);
  OPMATRIX_EXPECT_REJECTED(callDeformConv2d(bad, c));
  bad = in;
  bad.mask = in.mask.narrow(2, 0, in.mask.size(2) - 1);
  OPMATRIX_EXPECT_REJECTED(callDeformConv2d(bad, c));
  DeformConv2dConfig c2 = c;
  c2.groups = 3;  // 4 input channels are not divisible into 3 groups
  OPMATRIX_EXPECT_REJECTED(callDeformConv2d(in, c2));
  bad = in;
  bad.weight = in.weight.to(at::kDouble);
  OPMATRIX_EXPECT_REJECTED(callDeformConv2d(bad, c));
}

// CPU and CUDA kernels agree (forward and all backward outputs), float and double; the
// 16-bit types against float on the CPU with their own tolerance.
class DeformConv2dDevice : public ::testing::TestWithParam<at::ScalarType> {};

TEST_P(DeformConv2dDevice, CpuAndCudaAgree) {
  OPMATRIX_CHECK("deform_conv2d", "device");
  OPMATRIX_REQUIRE_OPS();
  OPMATRIX_REQUIRE_CUDA("opmatrix::deform_conv2d");
  const at::ScalarType dtype = GetParam();
  const bool low = isSixteenBit(dtype);
  for (const DeformConv2dCase& kase : deformConv2dCases()) {
    const auto& c = kase.config;
    const DeformConv2dInputs cpu = reference::makeDeformConv2dInputs(c, low ? at::kFloat : dtype, 99);
    const DeformConv2dInputs gpu = moved(cpu, at::kCUDA, dtype);
    const double tol = dtype == at::kDouble ? 1e-10 : dtype == at::kFloat ? 1e-4 : 5e-2;
    const at::Tensor out_cpu = callDeformConv2d(cpu, c);
    const at::Tensor out_gpu = callDeformConv2d(gpu, c);
    const double scale = 1 + out_cpu.abs().max().item<double>();
    expectClose(out_gpu.to(at::kCPU, out_cpu.scalar_type()), out_cpu, tol, tol * scale,
                kase.name + " forward");
    if (low) continue;  // 16-bit backward: atomics in half precision, checked in float only
    const at::Tensor grad = at::randn_like(out_cpu);
    const auto g_cpu = callDeformConv2dBackward(grad, cpu, c);
    const auto g_gpu = callDeformConv2dBackward(grad.to(at::kCUDA), gpu, c);
    const std::vector<at::Tensor> a = tensorList(g_gpu), b = tensorList(g_cpu);
    for (size_t i = 0; i < a.size(); ++i) {
      const double s = 1 + (b[i].numel() ? b[i].abs().max().item<double>() : 0.0);
      expectClose(a[i].cpu(), b[i], tol, tol * s, kase.name + " " + kDeformConv2dGradNames[i]);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(, DeformConv2dDevice, deviceDtypes(), DtypeName());

}  // namespace
}  // namespace opmatrix::cases
