// opmatrix::ms_deform_attn forward against Deformable-DETR's grid_sample composite
// (cases/reference/ms_deform_attn.cpp) on the CPU; and CPU against CUDA where a GPU is usable.
#include <ATen/ATen.h>

#include <string>
#include <vector>

#include "common/check.h"
#include "common/cuda.h"
#include "common/library.h"
#include "common/testbed.h"
#include "reference/deform_op_calls.h"
#include "reference/ms_deform_attn.h"

namespace opmatrix::cases {
namespace {

std::vector<MsDeformAttnCase> msDeformAttnCases() {
  std::vector<MsDeformAttnCase> out;
  out.push_back({"ThreeLevels", {}});
  MsDeformAttnConfig c;
  c.batch = 1; c.levels = {{4, 4}}; c.heads = 1; c.channels = 4; c.queries = 3; c.points = 1;
  out.push_back({"SingleLevelSinglePoint", c});
  c = {};
  c.levels = {{1, 1}, {1, 3}, {5, 1}};
  out.push_back({"DegenerateLevels", c});
  c = {};
  c.channels = 19;  // vector blocks of 8 plus a remainder
  c.heads = 3; c.points = 4; c.queries = 11;
  out.push_back({"WideChannels", c});
  c = {};
  c.loc_spread = 1.0;  // many samples outside [0, 1], some straddling the border
  out.push_back({"LocationsOutside", c});
  c = {};
  c.batch = 2; c.levels = {{16, 12}, {8, 6}, {4, 3}, {2, 2}}; c.heads = 4; c.channels = 32;
  c.queries = 70; c.points = 4;  // D = 32: the kernel's compile-time-D path; > 64 queries
  out.push_back({"DetrLikeSmall", c});
  c = {};
  c.channels = 16; c.loc_spread = 0.5;
  out.push_back({"Channels16", c});
  c = {};
  c.channels = 64; c.heads = 1; c.loc_spread = 0.5;
  out.push_back({"Channels64", c});
  return out;
}

class MsDeformAttnCorrectness : public NamedInDtypeTest<MsDeformAttnConfig> {};

TEST_P(MsDeformAttnCorrectness, MatchesGridSampleComposite) {
  OPMATRIX_CHECK("ms_deform_attn", "correctness");
  OPMATRIX_REQUIRE_OPS();
  const MsDeformAttnInputs in = reference::makeMsDeformAttnInputs(config(), dtype(), 2024);
  const at::Tensor expected = reference::msDeformAttn(in.value, in.spatial_shapes, in.sampling_loc,
                                                      in.attn_weight);
  const double tol = dtype() == at::kDouble ? 1e-10 : 1e-5;
  expectClose(callMsDeformAttn(in), expected, tol, tol, config().describe());
}

// Empty instantiation prefix: suite named exactly <Op><Check> (see the harness).
INSTANTIATE_TEST_SUITE_P(, MsDeformAttnCorrectness, namedInCpuDtypes(msDeformAttnCases()), NamedDtypeName());

// Locations on pixel centres, on the image border (0 and 1 map to -0.5 and size - 0.5:
// half the bilinear support outside), just inside/outside, and far outside.
TEST_F(MsDeformAttnCorrectness, LocationsOnAndAcrossBorders) {
  OPMATRIX_CHECK("ms_deform_attn", "correctness");
  OPMATRIX_REQUIRE_OPS();
  MsDeformAttnConfig c;
  c.batch = 1; c.levels = {{4, 5}, {2, 3}}; c.heads = 2; c.channels = 3; c.queries = 1; c.points = 1;
  MsDeformAttnInputs in = reference::makeMsDeformAttnInputs(c, at::kDouble, 5);
  const std::vector<double> coords{-1.0, -0.125, -0.1, 0.0, 0.1, 0.125, 0.5, 0.9, 1.0, 1.1, 1.125, 2.0};
  for (double x : coords) {
    for (double y : coords) {
      in.sampling_loc.select(5, 0).fill_(x);
      in.sampling_loc.select(5, 1).fill_(y);
      const at::Tensor expected = reference::msDeformAttn(in.value, in.spatial_shapes,
                                                          in.sampling_loc, in.attn_weight);
      expectClose(callMsDeformAttn(in), expected, 1e-12, 1e-12,
                  "loc (" + std::to_string(x) + ", " + std::to_string(y) + ")");
    }
  }
}

// A sampling point on a pixel centre returns that pixel exactly: pins the
// align_corners=False convention independently of grid_sample.
TEST_F(MsDeformAttnCorrectness, PixelCentreReturnsThePixel) {
  OPMATRIX_CHECK("ms_deform_attn", "correctness");
  OPMATRIX_REQUIRE_OPS();
  MsDeformAttnConfig c;
  c.batch = 1; c.levels = {{3, 4}}; c.heads = 1; c.channels = 2; c.queries = 1; c.points = 1;
  MsDeformAttnInputs in = reference::makeMsDeformAttnInputs(c, at::kDouble, 8);
  in.attn_weight.fill_(1.0);
  const int64_t row = 2, col = 1;
  in.sampling_loc.select(5, 0).fill_((col + 0.5) / 4.0);
  in.sampling_loc.select(5, 1).fill_((row + 0.5) / 3.0);
  const at::Tensor out = callMsDeformAttn(in);
  expectClose(out.view({2}), in.value[0][row * 4 + col][0], 1e-14, 1e-14, "pixel (2, 1)");
}

TEST_F(MsDeformAttnCorrectness, EmptyBatchAndNoQueries) {
  OPMATRIX_CHECK("ms_deform_attn", "correctness");
  OPMATRIX_REQUIRE_OPS();
  for (const auto& [batch, queries] : std::vector<std::pair<int64_t, int64_t>>{{0, 5}, {2, 0}}) {
    MsDeformAttnConfig c;
    c.batch = batch;
    c.queries = queries;
    const MsDeformAttnInputs in = reference::makeMsDeformAttnInputs(c, at::kFloat, 1);
    const at::Tensor out = callMsDeformAttn(in);
    EXPECT_EQ(out.sizes(), (std::vector<int64_t>{batch, queries, c.heads * c.channels}));
    const auto grads = callMsDeformAttnBackward(at::zeros_like(out), in);
    EXPECT_EQ(std::get<0>(grads).sizes(), in.value.sizes());
    EXPECT_EQ(std::get<1>(grads).sizes(), in.sampling_loc.sizes());
    EXPECT_EQ(std::get<2>(grads).sizes(), in.attn_weight.sizes());
  }
}

TEST_F(MsDeformAttnCorrectness, RejectsInconsistentInputs) {
  OPMATRIX_CHECK("ms_deform_attn", "correctness");
  OPMATRIX_REQUIRE_OPS();
  const MsDeformAttnInputs in = reference::makeMsDeformAttnInputs({}, at::kFloat, 1);
  MsDeformAttnInputs bad = in;
  bad.level_start_index = in.level_start_index + 1;  // levels no longer tile S
  OPMATRIX_EXPECT_REJECTED(callMsDeformAttn(bad));
  bad = in;
  bad.spatial_shapes = in.spatial_shapes.narrow(0, 0, 2);
  OPMATRIX_EXPECT_REJECTED(callMsDeformAttn(bad));
  bad = in;
  bad.attn_weight = in.attn_weight.narrow(4, 0, 1);
  OPMATRIX_EXPECT_REJECTED(callMsDeformAttn(bad));
  OPMATRIX_EXPECT_REJECTED(callMsDeformAttn(in, 0));  // im2col_step must be > 0
}

class MsDeformAttnDevice : public ::testing::TestWithParam<at::ScalarType> {};

TEST_P(MsDeformAttnDevice, CpuAndCudaAgree) {
  OPMATRIX_CHECK("ms_deform_attn", "device");
  OPMATRIX_REQUIRE_OPS();
  OPMATRIX_REQUIRE_CUDA("opmatrix::ms_deform_attn");
  const at::ScalarType dtype = GetParam();
  const bool low = isSixteenBit(dtype);
  for (const MsDeformAttnCase& kase : msDeformAttnCases()) {
    const MsDeformAttnInputs cpu = reference::makeMsDeformAttnInputs(kase.config, low ? at::kFloat : dtype, 77);
    const MsDeformAttnInputs gpu = moved(cpu, at::kCUDA, dtype);
    const double tol = dtype == at::kDouble ? 1e-10 : dtype == at::kFloat ? 1e-4 : 5e-2;
    const at::Tensor out_cpu = callMsDeformAttn(cpu);
    const at::Tensor out_gpu = callMsDeformAttn(gpu);
    expectClose(out_gpu.to(at::kCPU, out_cpu.scalar_type()), out_cpu, tol, tol, kase.name + " forward");
    if (low) continue;  // 16-bit backward accumulates with half-precision atomics
    const at::Tensor grad = at::randn_like(out_cpu);
    const auto g_cpu = callMsDeformAttnBackward(grad, cpu);
    const auto g_gpu = callMsDeformAttnBackward(grad.to(at::kCUDA), gpu);
    expectClose(std::get<0>(g_gpu).cpu(), std::get<0>(g_cpu), tol, tol, kase.name + " grad_value");
    expectClose(std::get<1>(g_gpu).cpu(), std::get<1>(g_cpu), tol, tol * 10, kase.name + " grad_sampling_loc");
    expectClose(std::get<2>(g_gpu).cpu(), std::get<2>(g_cpu), tol, tol, kase.name + " grad_attn_weight");
  }
}

INSTANTIATE_TEST_SUITE_P(, MsDeformAttnDevice, deviceDtypes(), DtypeName());

}  // namespace
}  // namespace opmatrix::cases
