// The Meta kernels of ms_deform_attn and _ms_deform_attn_backward give the CPU kernels'
// sizes and dtype, on the inputs' (meta) device.
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
  out.push_back({"ThreeLevels", {}});
  MsDeformAttnConfig c;
  c.batch = 1; c.levels = {{4, 4}}; c.heads = 1; c.channels = 5; c.queries = 2; c.points = 1;
  out.push_back({"SingleLevelSinglePoint", c});
  c = {};
  c.batch = 0;
  out.push_back({"EmptyBatch", c});
  return out;
}

class MsDeformAttnMeta : public NamedInDtypeTest<MsDeformAttnConfig> {};

// The index tensors are meta too, as FakeTensor passes them: the Meta kernel must not read
// their values.
TEST_P(MsDeformAttnMeta, MatchesCpuKernel) {
  OPMATRIX_CHECK("ms_deform_attn", "meta");
  OPMATRIX_REQUIRE_OPS();
  expectMetaMatchesCpu<MsDeformAttnOps>(config(), dtype(), 19);
}

INSTANTIATE_TEST_SUITE_P(, MsDeformAttnMeta, namedInCpuDtypes(msDeformAttnCases()), NamedDtypeName());

}  // namespace
}  // namespace opmatrix::cases
