#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "results/test_outcomes.h"

namespace fs = std::filesystem;

namespace opmatrix {

TEST(TestOutcomes, ParsesCtestVerdictsIncludingCrashesAndTimeouts) {
  const std::string log = R"(Test project /build
      Start  1: NmsCorrectness.MatchesReference
 1/5 Test  #1: NmsCorrectness.MatchesReference ..........   Passed    0.21 sec
 2/5 Test  #2: RoiAlignGradient.FiniteDifferences ........***Failed    1.02 sec
 3/5 Test  #3: DeformConv2dCorrectness.Big ...............***Exception: SegFault  0.30 sec
 4/5 Test  #4: MsDeformAttnDevice.CpuMatchesCuda .........***Skipped   0.01 sec
 5/5 Test  #5: NmsMeta.Sizes .............................***Timeout 300.05 sec
 6/6 Test #36: Ops/OpRegistration.CudaKernel/nms  # GetParam() = "nms" .........***Skipped   2.16 sec
)";
  auto t = parse_ctest_log(log);
  ASSERT_EQ(t.size(), 6u);
  EXPECT_EQ(t[0].name, "NmsCorrectness.MatchesReference");
  EXPECT_EQ(t[0].status, Status::pass);
  EXPECT_DOUBLE_EQ(t[0].seconds, 0.21);
  EXPECT_EQ(t[1].status, Status::fail);
  EXPECT_EQ(t[2].status, Status::crash);
  EXPECT_EQ(t[2].message, "Exception: SegFault");
  EXPECT_EQ(t[3].status, Status::skip);
  EXPECT_EQ(t[4].status, Status::timeout);
  EXPECT_EQ(t[5].name, "Ops/OpRegistration.CudaKernel/nms");  // as gtest's JSON names it
  EXPECT_EQ(t[5].status, Status::skip);
}

TEST(TestOutcomes, SuiteNamesGiveOpAndCheck) {
  EXPECT_EQ(op_and_check_from_suite("NmsCorrectness"), std::make_pair(std::string("nms"), std::string("correctness")));
  EXPECT_EQ(op_and_check_from_suite("RoiAlignGradient"), std::make_pair(std::string("roi_align"), std::string("gradient")));
  EXPECT_EQ(op_and_check_from_suite("DeformConv2dMeta"), std::make_pair(std::string("deform_conv2d"), std::string("meta")));
  EXPECT_EQ(op_and_check_from_suite("MsDeformAttnDevice"), std::make_pair(std::string("ms_deform_attn"), std::string("device")));
  EXPECT_EQ(op_and_check_from_suite("Whatever"), std::make_pair(std::string(), std::string()));
}

TEST(TestOutcomes, GtestJsonSuppliesTagsFailuresAndSkipReasons) {
  const fs::path dir = fs::temp_directory_path() / "opmatrix-gtest-json-test";
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::ofstream(dir / "cases.json") << R"({"testsuites": [{"name": "Registration", "testsuite": [
      {"name": "Nms", "status": "RUN", "result": "COMPLETED", "time": "0.1s", "op": "nms", "check": "registration",
       "failures": [{"failure": "opmatrix::nms has no CUDA kernel", "type": ""}]},
      {"name": "CudaAgrees", "status": "RUN", "result": "SKIPPED", "time": "0s", "op": "nms", "check": "device",
       "skip_reason": "torch built without CUDA"}]},
    {"name": "OpRegistration", "testsuite": [
      {"name": "Schema/nms", "status": "RUN", "result": "COMPLETED", "time": "0s", "op": "nms", "check": "registration"}]}]})";
  // What --gtest_list_tests writes during discovery: no status, must not hide the real entry.
  std::ofstream(dir / "cases_2.json") << R"({"testsuites": [{"name": "Registration", "testsuite": [{"name": "Nms"}]}]})";
  std::ofstream(dir / "cases_1.json") << "{ truncated";
  std::vector<TestOutcome> t(5);
  t[4].name = "OpRegistration.CudaKernel/roi_align";  // crashed: no JSON at all
  t[4].status = Status::crash;
  t[3].name = "Ops/OpRegistration.Schema/nms";  // ctest's name for a parameterised test
  t[0].name = "Registration.Nms";
  t[0].status = Status::fail;
  t[1].name = "Registration.CudaAgrees";
  t[1].status = Status::skip;
  t[2].name = "RoiAlignCorrectness.Crashed";
  t[2].status = Status::crash;
  annotate_from_gtest_json(t, dir.string());
  fs::remove_all(dir);
  EXPECT_EQ(t[0].op, "nms");
  EXPECT_EQ(t[0].check, "registration");
  EXPECT_EQ(t[0].message, "opmatrix::nms has no CUDA kernel");
  EXPECT_EQ(t[1].check, "device");
  EXPECT_EQ(t[1].message, "torch built without CUDA");
  EXPECT_EQ(t[2].op, "roi_align");  // no JSON: the suite name tells
  EXPECT_EQ(t[2].check, "correctness");
  EXPECT_EQ(t[3].op, "nms");
  EXPECT_EQ(t[3].check, "registration");
  EXPECT_EQ(t[4].op, "roi_align");
  EXPECT_EQ(t[4].check, "registration");
}

}  // namespace opmatrix
