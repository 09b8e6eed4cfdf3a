// The Meta kernels of ms_deform_attn and _ms_deform_attn_backward give the CPU kernels'
// sizes and dtype, on the inputs' (meta) device.
#include <ATen/ATen.h>

#include <string>
#include <vector>

#include "common/check.h"
#include "common/library.h"
#include "reference/deform_op_calls.h"
#include "reference/ms_deform_attn.h"

namespace {

using opmatrix::cases::callMsDeformAttn;
using opmatrix::cases::callMsDeformAttnBackward;
using opmatrix::reference::MsDeformAttnConfig;
using opmatrix::reference::MsDeformAttnInputs;

struct Case {
  std::string name;
  MsDeformAttnConfig config;
};

std::vector<Case> cases() {
  std::vector<Case> out;
  out.push_back({"ThreeLevels", {}});
  MsDeformAttnConfig c;
  c.batch = 1; c.levels = {{4, 4}}; c.heads = 1; c.channels = 5; c.queries = 2; c.points = 1;
  out.push_back({"SingleLevelSinglePoint", c});
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

class MsDeformAttnMeta : public ::testing::TestWithParam<std::tuple<Case, at::ScalarType>> {};

TEST_P(MsDeformAttnMeta, MatchesCpuKernel) {
  OPMATRIX_CHECK("ms_deform_attn", "meta");
  OPMATRIX_REQUIRE_OPS();
  const auto& [kase, dtype] = GetParam();
  const MsDeformAttnInputs cpu = opmatrix::reference::makeMsDeformAttnInputs(kase.config, dtype, 19);
  // The index tensors are meta too, as FakeTensor passes them: the Meta kernel must not
  // read their values.
  const MsDeformAttnInputs meta{toMeta(cpu.value), toMeta(cpu.spatial_shapes),
                                toMeta(cpu.level_start_index), toMeta(cpu.sampling_loc),
                                toMeta(cpu.attn_weight)};
  const at::Tensor out_cpu = callMsDeformAttn(cpu);
  const at::Tensor out_meta = callMsDeformAttn(meta);
  expectSameMeta(out_meta, out_cpu, "output");

  const auto g_cpu = callMsDeformAttnBackward(at::ones_like(out_cpu), cpu);
  const auto g_meta = callMsDeformAttnBackward(toMeta(out_cpu), meta);
  expectSameMeta(std::get<0>(g_meta), std::get<0>(g_cpu), "grad_value");
  expectSameMeta(std::get<1>(g_meta), std::get<1>(g_cpu), "grad_sampling_loc");
  expectSameMeta(std::get<2>(g_meta), std::get<2>(g_cpu), "grad_attn_weight");
}

INSTANTIATE_TEST_SUITE_P(
    , MsDeformAttnMeta,
    ::testing::Combine(::testing::ValuesIn(cases()), ::testing::Values(at::kFloat, at::kDouble)),
    [](const auto& info) {
      return std::get<0>(info.param).name + "_" +
             std::string(c10::toString(std::get<1>(info.param)));
    });

}  // namespace
