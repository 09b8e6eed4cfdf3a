// The Meta kernels of deform_conv2d and _deform_conv2d_backward give the CPU kernels'
// sizes and dtype, on the inputs' (meta) device, and reject what the CPU kernels reject.
// This is what FakeTensor tracing (torch.compile / export) relies on.
#include <ATen/ATen.h>

#include <string>
#include <vector>

#include "common/check.h"
#include "common/library.h"
#include "reference/deform_conv2d.h"
#include "reference/deform_op_calls.h"

namespace {

using opmatrix::cases::callDeformConv2d;
using opmatrix::cases::callDeformConv2dBackward;
using opmatrix::reference::DeformConv2dConfig;
using opmatrix::reference::DeformConv2dInputs;

struct Case {
  std::string name;
  DeformConv2dConfig config;
};

std::vector<Case> cases() {
  std::vector<Case> out;
  out.push_back({"Basic", {}});
  DeformConv2dConfig c;
  c.use_mask = false; c.in_h = 7; c.in_w = 9; c.kernel_w = 2; c.stride_h = 2; c.pad_h = 0;
  c.pad_w = 2; c.dilation_h = 2;
  out.push_back({"NoMaskStridePadDilation", c});
  c = {};
  c.in_channels = 8; c.groups = 2; c.offset_groups = 4;
  out.push_back({"Groups", c});
  c = {};
  c.batch = 0;
  out.push_back({"EmptyBatch", c});
  return out;
}

at::Tensor toMeta(const at::Tensor& t) { return at::empty(t.sizes(), t.options().device(at::kMeta)); }

void expectSameMeta(const at::Tensor& meta, const at::Tensor& cpu, const std::string& what) {
  EXPECT_EQ(meta.sizes(), cpu.sizes()) << what;
  EXPECT_EQ(meta.scalar_type(), cpu.scalar_type()) << what;
  EXPECT_TRUE(meta.is_meta()) << what << ": on " << meta.device() << ", expected meta";
  EXPECT_EQ(meta.is_contiguous(), cpu.is_contiguous()) << what;
}

class DeformConv2dMeta : public ::testing::TestWithParam<std::tuple<Case, at::ScalarType>> {};

TEST_P(DeformConv2dMeta, MatchesCpuKernel) {
  OPMATRIX_CHECK("deform_conv2d", "meta");
  OPMATRIX_REQUIRE_OPS();
  const auto& [kase, dtype] = GetParam();
  const DeformConv2dConfig& c = kase.config;
  const DeformConv2dInputs cpu = opmatrix::reference::makeDeformConv2dInputs(c, dtype, 17);
  const DeformConv2dInputs meta{toMeta(cpu.input), toMeta(cpu.weight), toMeta(cpu.offset),
                                toMeta(cpu.mask), toMeta(cpu.bias)};
  const at::Tensor out_cpu = callDeformConv2d(cpu, c);
  const at::Tensor out_meta = callDeformConv2d(meta, c);
  expectSameMeta(out_meta, out_cpu, "output");

  const auto g_cpu = callDeformConv2dBackward(at::ones_like(out_cpu), cpu, c);
  const auto g_meta = callDeformConv2dBackward(toMeta(out_cpu), meta, c);
  expectSameMeta(std::get<0>(g_meta), std::get<0>(g_cpu), "grad_input");
  expectSameMeta(std::get<1>(g_meta), std::get<1>(g_cpu), "grad_weight");
  expectSameMeta(std::get<2>(g_meta), std::get<2>(g_cpu), "grad_offset");
  expectSameMeta(std::get<3>(g_meta), std::get<3>(g_cpu), "grad_mask");
  expectSameMeta(std::get<4>(g_meta), std::get<4>(g_cpu), "grad_bias");
}

INSTANTIATE_TEST_SUITE_P(
    , DeformConv2dMeta,
    ::testing::Combine(::testing::ValuesIn(cases()), ::testing::Values(at::kFloat, at::kDouble)),
    [](const auto& info) {
      return std::get<0>(info.param).name + "_" +
             std::string(c10::toString(std::get<1>(info.param)));
    });

TEST_F(DeformConv2dMeta, RejectsWhatCpuRejects) {
  OPMATRIX_CHECK("deform_conv2d", "meta");
  OPMATRIX_REQUIRE_OPS();
  DeformConv2dConfig c;
  const DeformConv2dInputs cpu = opmatrix::reference::makeDeformConv2dInputs(c, at::kFloat, 18);
  DeformConv2dInputs bad = cpu;
  bad.offset = cpu.offset.narrow(1, 0, cpu.offset.size(1) - 2);
  EXPECT_THROW(callDeformConv2d(bad, c), c10::Error);
  const DeformConv2dInputs bad_meta{toMeta(bad.input), toMeta(bad.weight), toMeta(bad.offset),
                                    toMeta(bad.mask), toMeta(bad.bias)};
  EXPECT_THROW(callDeformConv2d(bad_meta, c), c10::Error);
}

}  // namespace
