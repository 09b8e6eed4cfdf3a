// The load module's rules over a project cell's results (checks/load/load_rules.h): one cause,
// one fix where the library does not load, and what ran an op's fake kernel over whether a
// Meta kernel is registered. Results are hand-made, in the form the judges write them.
#include <gtest/gtest.h>

#include "../results/check_result_fixture.h"
#include "checks/load/load_rules.h"

namespace opmatrix {

namespace {

Project project() {
  Project p;
  p.ns = "lib";
  return p;
}

CheckResult with_kind(CheckResult c, const std::string& kind) {
  c.diagnosis = Diagnosis{kind, c.message, "a fix of its own", "repro", ""};
  return c;
}

const CheckResult* find(const std::vector<CheckResult>& checks, const std::string& op, const std::string& check,
                        const std::string& subtest = "") {
  for (const auto& c : checks)
    if (c.op == op && c.check == check && c.subtest == subtest) return &c;
  return nullptr;
}

}  // namespace

// fbgemm-gpu-cpu 1.0.0 in torch 2.15: its library does not load, so its ops are not there; the
// registration reds said "register the kernel (TORCH_LIBRARY_IMPL)", a wrong fix.
TEST(OneCauseOneFix, OpsALibraryThatDoesNotLoadWouldDefineAreNotChecked) {
  const Project p = project();
  CheckResult load = check_result("", "load", Status::fail, "fbgemm_gpu_py.so: undefined symbol: c10::Foo()", "library");
  std::vector<CheckResult> checks = {
      load, check_result("", "load", Status::pass, "import fbgemm_gpu: ok", "import"),
      with_kind(check_result("gone", "registration", Status::fail, "lib::gone is not registered at all"),
                "not_registered_at_all"),
      with_kind(check_result("gone", "compile", Status::error, "lib::gone is not registered after loading"), "compile"),
      with_kind(check_result("here", "registration", Status::fail, "lib::here: no CUDA kernel"), "not_registered"),
      check_result("here", "compile", Status::pass)};
  one_cause_one_fix(&p, checks);
  for (const char* check : {"registration", "compile"}) {
    const CheckResult* c = find(checks, "gone", check);
    ASSERT_TRUE(c) << check;
    EXPECT_EQ(c->status, Status::skip) << check;
    EXPECT_EQ(c->message, "not checked: the library does not load here (see load: fbgemm_gpu_py.so: undefined "
                          "symbol: c10::Foo())");
    EXPECT_FALSE(c->diagnosis) << check;
  }
  // An op the loaded libraries did define keeps its own red: its cause is not the load.
  EXPECT_EQ(find(checks, "here", "registration")->status, Status::fail);
  EXPECT_EQ(find(checks, "", "load", "library")->status, Status::fail);
}

TEST(OneCauseOneFix, AFailedImportExplainsEveryOpsBehaviourErrors) {
  const Project p = project();
  std::vector<CheckResult> checks = {
      check_result("", "load", Status::fail, "import detr failed: ModuleNotFoundError: No module named 'fvcore'", "import"),
      check_result("ms_attn", "opcheck", Status::error, "import detr failed", "test_schema"),
      check_result("torchvision::nms", "opcheck", Status::fail, "torchvision's own", "test_schema")};
  one_cause_one_fix(&p, checks);
  EXPECT_EQ(find(checks, "ms_attn", "opcheck", "test_schema")->status, Status::skip);
  // torchvision's ops are another library, judged on their own.
  EXPECT_EQ(find(checks, "torchvision::nms", "opcheck", "test_schema")->status, Status::fail);
}

TEST(OneCauseOneFix, NothingChangesWhereEverythingLoads) {
  const Project p = project();
  std::vector<CheckResult> checks = {check_result("", "load", Status::pass, "ok", "library"),
                                     check_result("a", "registration", Status::fail, "lib::a: no CPU kernel")};
  const auto before = checks;
  one_cause_one_fix(&p, checks);
  EXPECT_EQ(checks[1].status, before[1].status);
  EXPECT_EQ(checks[1].message, before[1].message);
}

// torch-scatter 2.1.2: a kernel registered for every key serves Meta, but it reads data, so it
// cannot run on fake tensors: not a meta pass.
TEST(BehaviourOverPresence, AKernelForMetaThatCannotRunOnFakeTensorsFails) {
  const Project p = project();
  std::vector<CheckResult> checks = {
      check_result("scatter_sum", "meta", Status::pass, "lib::scatter_sum has a Meta kernel (via CompositeImplicitAutograd)"),
      check_result("scatter_sum", "opcheck", Status::pass, "3 sample(s) pass", "test_faketensor"),
      with_kind(check_result("scatter_sum", "opcheck", Status::fail,
                             "1 of 1 sample(s) fail test_aot_dispatch_dynamic: Cannot call numel() on tensor with "
                             "symbolic sizes/strides",
                             "test_aot_dispatch_dynamic"),
                "opcheck_test_aot_dispatch_dynamic")};
  behaviour_over_presence(&p, checks);
  const CheckResult* meta = find(checks, "scatter_sum", "meta");
  EXPECT_EQ(meta->status, Status::fail);
  EXPECT_EQ(meta->message.rfind("lib::scatter_sum cannot run on fake tensors (opcheck test_aot_dispatch_dynamic "
                                "failed); opcheck test_aot_dispatch_dynamic: 1 of 1 sample(s) fail",
                                0),
            0u)
      << meta->message;
  EXPECT_NE(meta->message.find("its kernel for Meta is registered"), std::string::npos);
  ASSERT_TRUE(meta->diagnosis);
  EXPECT_EQ(meta->diagnosis->kind, "no_fake_kernel");
  EXPECT_EQ(meta->diagnosis->repro, "repro");
}

// pytorch/extension-cpp's myadd_out returns nothing: it needs no fake kernel of its own.
TEST(BehaviourOverPresence, AnOpThatRunsOnFakeTensorsWithoutAMetaKernelPasses) {
  const Project p = project();
  std::vector<CheckResult> checks = {
      with_kind(check_result("myadd_out", "meta", Status::fail, "lib::myadd_out has no Meta kernel: FakeTensor ..."),
                "no_meta_kernel"),
      check_result("myadd_out", "opcheck", Status::pass, "pass", "test_faketensor"),
      check_result("myadd_out", "opcheck", Status::pass, "pass", "test_aot_dispatch_dynamic"),
      check_result("myadd_out", "opcheck", Status::fail, "schema says otherwise", "test_schema")};
  behaviour_over_presence(&p, checks);
  const CheckResult* meta = find(checks, "myadd_out", "meta");
  EXPECT_EQ(meta->status, Status::pass);
  EXPECT_EQ(meta->message, "lib::myadd_out needs no Meta kernel of its own: opcheck test_faketensor, opcheck "
                           "test_aot_dispatch_dynamic pass on fake tensors (no kernel is registered for Meta; torch's "
                           "own fake handling serves it)");
  EXPECT_FALSE(meta->diagnosis);
}

TEST(BehaviourOverPresence, AWrongFakeSizeIsAFakeSizeMismatch) {
  const Project p = project();
  std::vector<CheckResult> checks = {
      check_result("keep", "meta", Status::pass, "lib::keep has a Meta kernel"),
      with_kind(check_result("keep", "fake-device", Status::fail, "on fake CUDA tensors, keep(f32[8]): output 0 has "
                                                                   "shape ['8'], the real kernel gives [4]"),
                "fake_device_mismatch")};
  behaviour_over_presence(&p, checks);
  EXPECT_EQ(find(checks, "keep", "meta")->status, Status::fail);
  EXPECT_EQ(find(checks, "keep", "meta")->diagnosis->kind, "fake_size_mismatch");
}

TEST(BehaviourOverPresence, WhereNothingRanTheFakeKernelPresenceSaysSo) {
  const Project p = project();
  std::vector<CheckResult> checks = {
      check_result("a", "meta", Status::pass, "lib::a has a Meta kernel"),
      check_result("a", "opcheck", Status::skip, "torch 1.13 has no torch.library.opcheck", "test_faketensor")};
  behaviour_over_presence(&p, checks);
  EXPECT_EQ(find(checks, "a", "meta")->status, Status::pass);
  EXPECT_EQ(find(checks, "a", "meta")->message,
            "lib::a has a Meta kernel (judged by presence only: torch 1.13 has no torch.library.opcheck)");
}

}  // namespace opmatrix
