#include "checks/script/script_judge.h"

#include <gtest/gtest.h>

namespace opmatrix {
namespace {

const char* kRepro = "podman run IMAGE python.sh dup.py /build/lib.so";

TEST(ScriptChecks, PassAndFailEntriesBecomeCheckResultsWithRepro) {
  const auto j = nlohmann::json::parse(R"({"checks": [
    {"check": "dup", "status": "pass", "message": "none twice"},
    {"check": "dup", "op": "nms", "arch": "9.0", "status": "fail", "message": "twice",
     "diagnosis": {"kind": "duplicate_extension", "summary": "built twice", "fix": "delete one", "evidence": "a, b"}}]})");
  const auto out = script_checks(j, "dup", kRepro);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].status, Status::pass);
  EXPECT_FALSE(out[0].diagnosis);
  EXPECT_EQ(out[1].status, Status::fail);
  EXPECT_EQ(out[1].op, "nms");
  EXPECT_EQ(out[1].arch, "9.0");
  ASSERT_TRUE(out[1].diagnosis);
  EXPECT_EQ(out[1].diagnosis->kind, "duplicate_extension");
  EXPECT_EQ(out[1].diagnosis->fix, "delete one");
  EXPECT_EQ(out[1].diagnosis->repro, kRepro);
}

// torch-linear-assignment 0.1.0's unpinned `triton` brings triton 3.9 beside Debian's torch 2.6,
// whose compile machinery cannot import it: every op's opcheck fails alike, torchvision's too.
// One red, at the first op; a failure of another kind stays its own.
TEST(ScriptChecks, ARequirementBreakingTorchIsOneRed) {
  const std::string broke = "triton 3.9.0, installed by the project's requirements, breaks torch's own machinery here: "
                            "ImportError: cannot import name 'AttrsDescriptor' from 'triton.compiler.compiler'";
  nlohmann::json j = {{"checks", nlohmann::json::array()}};
  for (const char* op : {"torchvision::nms", "torchvision::roi_align"})
    j["checks"].push_back({{"check", "opcheck"}, {"op", op}, {"status", "fail"}, {"message", broke},
                           {"diagnosis", {{"kind", "requirement_breaks_torch"}, {"fix", "bound it"}}}});
  j["checks"].push_back({{"check", "opcheck"}, {"op", "torchvision::ps_roi_pool"}, {"status", "fail"},
                         {"message", "2 of 2 sample(s) fail test_schema"}});
  const auto out = script_checks(j, "opcheck", kRepro);
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0].status, Status::fail);
  ASSERT_TRUE(out[0].diagnosis);
  EXPECT_EQ(out[0].diagnosis->kind, "requirement_breaks_torch");
  EXPECT_EQ(out[1].status, Status::skip);
  EXPECT_EQ(out[1].message, "not judged apart: triton 3.9.0, installed by the project's requirements, breaks torch's "
                            "own machinery here (red once, at its first op)");
  EXPECT_EQ(out[2].status, Status::fail);
  // The next behaviour check that meets it in the same cell (torch-blocksparse 1.1.1 beside Debian's
  // CUDA torch 2.6: opcheck, then fake-device) points to the first red.
  nlohmann::json fake = {{"checks", nlohmann::json::array()}};
  fake["checks"].push_back({{"check", "fake-device"}, {"op", "torchvision::nms"}, {"status", "fail"}, {"message", broke},
                            {"diagnosis", {{"kind", "requirement_breaks_torch"}, {"fix", "bound it"}}}});
  const auto after = script_checks(fake, "fake-device", kRepro, out);
  ASSERT_EQ(after.size(), 1u);
  EXPECT_EQ(after[0].status, Status::skip);
  EXPECT_EQ(after[0].message, "not judged apart: triton 3.9.0, installed by the project's requirements, breaks "
                              "torch's own machinery here (red once, at the opcheck check)");
  EXPECT_EQ(script_checks(fake, "fake-device", kRepro)[0].status, Status::fail);  // alone: its own red
}

TEST(ScriptChecks, SubtestAndSampleAreKept) {
  const auto j = nlohmann::json::parse(R"js({"checks": [
    {"check": "opcheck", "op": "nms", "subtest": "test_faketensor", "sample": "nms(f32[8,4], f32[8], 0.5)",
     "status": "fail", "message": "Shapes torch.Size([4]) and torch.Size([8]) are not equal!"},
    {"check": "opcheck", "op": "nms", "subtest": "test_schema", "status": "pass", "message": "1 sample(s) pass"}]})js");
  const auto out = script_checks(j, "opcheck", kRepro);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].subtest, "test_faketensor");
  EXPECT_EQ(out[0].sample, "nms(f32[8,4], f32[8], 0.5)");
  EXPECT_EQ(out[1].subtest, "test_schema");
  EXPECT_TRUE(out[1].sample.empty());
  // And they survive results/<cell>.json.
  CellResult r;
  r.cell = {{"id", "c"}};
  r.checks = out;
  const CellResult back = cell_result_from_json(to_json(r));
  EXPECT_EQ(back.checks.at(0).subtest, "test_faketensor");
  EXPECT_EQ(back.checks.at(0).sample, "nms(f32[8,4], f32[8], 0.5)");
  EXPECT_FALSE(to_json(r)["checks"][1].contains("sample"));  // only when there is one
}

TEST(ScriptChecks, AFailureWithoutDiagnosisGetsOneFromItsMessage) {
  const auto out = script_checks(nlohmann::json::parse(R"({"checks": [{"check": "dup", "status": "error", "message": "boom"}]})"),
                                 "dup", kRepro);
  ASSERT_EQ(out.size(), 1u);
  ASSERT_TRUE(out[0].diagnosis);
  EXPECT_EQ(out[0].diagnosis->kind, "dup");
  EXPECT_EQ(out[0].diagnosis->summary, "boom");
}

TEST(ScriptChecks, MalformedReportsAreOneError) {
  for (const char* bad : {R"([])", R"({"checks": 3})", R"({"checks": [1]})",
                          R"({"checks": [{"check": "other", "status": "pass"}]})",
                          R"({"checks": [{"check": "dup", "status": "xpass"}]})"}) {
    const auto out = script_checks(nlohmann::json::parse(bad), "dup", kRepro);
    ASSERT_EQ(out.size(), 1u) << bad;
    EXPECT_EQ(out[0].status, Status::error) << bad;
    EXPECT_EQ(out[0].check, "dup");
    ASSERT_TRUE(out[0].diagnosis);
    EXPECT_NE(out[0].message.find("malformed"), std::string::npos) << out[0].message;
  }
}

}  // namespace
}  // namespace opmatrix
