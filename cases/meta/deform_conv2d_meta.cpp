// The Meta kernels of deform_conv2d and _deform_conv2d_backward give the CPU kernels'
// sizes and dtype, on the inputs' (meta) device, and reject what the CPU kernels reject.
// This is what FakeTensor tracing (torch.compile / export) relies on.
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

class DeformConv2dMeta : public NamedInDtypeTest<DeformConv2dConfig> {};

TEST_P(DeformConv2dMeta, MatchesCpuKernel) {
  OPMATRIX_CHECK("deform_conv2d", "meta");
  OPMATRIX_REQUIRE_OPS();
  expectMetaMatchesCpu<DeformConv2dOps>(config(), dtype(), 17);
}

INSTANTIATE_TEST_SUITE_P(, DeformConv2dMeta, namedInCpuDtypes(deformConv2dCases()), NamedDtypeName());

TEST_F(DeformConv2dMeta, RejectsWhatCpuRejects) {
  OPMATRIX_CHECK("deform_conv2d", "meta");
  OPMATRIX_REQUIRE_OPS();
  DeformConv2dConfig c;
  const DeformConv2dInputs cpu = reference::makeDeformConv2dInputs(c, at::kFloat, 18);
  DeformConv2dInputs bad = cpu;
  bad.offset = cpu.offset.narrow(1, 0, cpu.offset.size(1) - 2);
  EXPECT_THROW(callDeformConv2d(bad, c), c10::Error);
  EXPECT_THROW(callDeformConv2d(toMeta(bad), c), c10::Error);
}

}  // namespace
}  // namespace opmatrix::cases
