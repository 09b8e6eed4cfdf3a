#include <filesystem>
#include <fstream>
#include <map>

#include <gtest/gtest.h>

#include "results/test_outcomes.h"

namespace fs = std::filesystem;

namespace opmatrix {

namespace {

// A ctest log of one test per case binary (-j2, --output-on-failure): output blocks follow
// the verdict of the binaries that did not pass.
const char* const kCtestLog = R"(Test project /build
        Start  1: registration
        Start  2: nms_correctness
 1/5 Test  #2: nms_correctness ..................   Passed    3.21 sec
        Start  3: roi_align_correctness
 2/5 Test  #1: registration .....................***Failed    2.02 sec
Running main() from test_main.cpp
[==========] Running 2 tests from 1 test suite.
[ RUN      ] OpRegistration.Load/nms
[       OK ] OpRegistration.Load/nms (3 ms)
[ RUN      ] OpRegistration.CudaKernel/nms
/src/cases/registration/registration.cpp:101: Failure
opmatrix::nms has no CUDA kernel
[  FAILED  ] OpRegistration.CudaKernel/nms, where GetParam() = "nms" (1 ms)
[  FAILED  ] OpRegistration.CudaKernel/nms, where GetParam() = "nms"

 1 FAILED TEST
        Start  4: roi_align_meta
 3/5 Test  #3: roi_align_correctness ............***Exception: SegFault  1.30 sec
[==========] Running 3 tests from 1 test suite.
[ RUN      ] RoiAlignCorrectness.Empty
[  SKIPPED ] RoiAlignCorrectness.Empty (0 ms)
[ RUN      ] RoiAlignCorrectness.Big
about to index out of bounds
        Start  5: nms_device
 4/5 Test  #4: roi_align_meta ...................***Timeout 1200.05 sec
[ RUN      ] RoiAlignMeta.Sizes
 5/5 Test  #5: nms_device .......................***Failed    0.01 sec
/build/nms_device: error while loading shared libraries: libcuda.so.1: cannot open shared object file: No such file or directory

60% tests passed, 3 tests failed out of 5

Total Test time (real) = 1206.10 sec
)";

void write(const fs::path& p, const std::string& text) { std::ofstream(p) << text; }

}  // namespace

TEST(TestOutcomes, ParsesOneCtestVerdictPerBinaryWithItsOutput) {
  auto runs = parse_ctest_log(kCtestLog);
  ASSERT_EQ(runs.size(), 5u);
  EXPECT_EQ(runs[0].name, "nms_correctness");
  EXPECT_EQ(runs[0].status, Status::pass);
  EXPECT_DOUBLE_EQ(runs[0].seconds, 3.21);
  EXPECT_EQ(runs[0].output, "");
  EXPECT_EQ(runs[1].name, "registration");
  EXPECT_EQ(runs[1].status, Status::fail);
  EXPECT_NE(runs[1].output.find("[ RUN      ] OpRegistration.Load/nms"), std::string::npos);
  EXPECT_EQ(runs[1].output.find("Start"), std::string::npos);
  EXPECT_EQ(runs[2].status, Status::crash);
  EXPECT_EQ(runs[2].verdict, "Exception: SegFault");
  EXPECT_EQ(runs[3].status, Status::timeout);
  EXPECT_EQ(runs[4].status, Status::fail);
  EXPECT_NE(runs[4].output.find("libcuda.so.1"), std::string::npos);
  EXPECT_EQ(runs[4].output.find("tests passed"), std::string::npos);
}

TEST(TestOutcomes, ReadsEveryWayCtestReportsASignal) {
  auto runs = parse_ctest_log(R"(1/4 Test  #4: nms_correctness ..................Subprocess killed***Exception:   6.49 sec
2/4 Test  #2: a_b ..............................Subprocess aborted***Exception:   0.20 sec
3/4 Test  #3: c .....***Exception: Illegal  0.20 sec
4/4 Test  #1: registration ......................***Not Run (Disabled)   0.00 sec
)");
  ASSERT_EQ(runs.size(), 4u);
  EXPECT_EQ(runs[0].name, "nms_correctness");
  EXPECT_EQ(runs[0].status, Status::crash);
  EXPECT_EQ(runs[0].verdict, "Exception: Subprocess killed");
  EXPECT_DOUBLE_EQ(runs[0].seconds, 6.49);
  EXPECT_EQ(runs[1].verdict, "Exception: Subprocess aborted");
  EXPECT_EQ(runs[2].verdict, "Exception: Illegal");
  EXPECT_EQ(runs[3].status, Status::error);
  EXPECT_EQ(runs[3].verdict, "Not Run (Disabled)");
}

TEST(TestOutcomes, GtestConsoleGivesFinishedTestsAndTheOneThatWasRunning) {
  auto t = parse_gtest_console(
      "[ RUN      ] A.Ok\n[       OK ] A.Ok (12 ms)\n[ RUN      ] A.Skip\n/src/x.cpp:3: Skipped\nno GPU\n"
      "[  SKIPPED ] A.Skip (0 ms)\n[ RUN      ] P.Fails/nms\nx.cpp:1: Failure\nbad\n"
      "[  FAILED  ] P.Fails/nms, where GetParam() = \"nms\" (5 ms)\n[ RUN      ] A.Dies\nlast words\n",
      Status::crash, "Exception: SegFault");
  ASSERT_EQ(t.size(), 4u);
  EXPECT_EQ(t[0].name, "A.Ok");
  EXPECT_EQ(t[0].status, Status::pass);
  EXPECT_DOUBLE_EQ(t[0].seconds, 0.012);
  EXPECT_EQ(t[1].status, Status::skip);
  EXPECT_EQ(t[1].message, "no GPU");
  EXPECT_EQ(t[2].name, "P.Fails/nms");
  EXPECT_EQ(t[2].status, Status::fail);
  EXPECT_EQ(t[2].message, "x.cpp:1: Failure\nbad");
  EXPECT_EQ(t[3].name, "A.Dies");
  EXPECT_EQ(t[3].status, Status::crash);
  EXPECT_EQ(t[3].message, "Exception: SegFault\nlast words");
}

TEST(TestOutcomes, SuiteNamesGiveOpAndCheck) {
  EXPECT_EQ(op_and_check_from_suite("NmsCorrectness"), std::make_pair(std::string("nms"), std::string("correctness")));
  EXPECT_EQ(op_and_check_from_suite("RoiAlignGradient"), std::make_pair(std::string("roi_align"), std::string("gradient")));
  EXPECT_EQ(op_and_check_from_suite("DeformConv2dMeta"), std::make_pair(std::string("deform_conv2d"), std::string("meta")));
  EXPECT_EQ(op_and_check_from_suite("MsDeformAttnDevice"), std::make_pair(std::string("ms_deform_attn"), std::string("device")));
  EXPECT_EQ(op_and_check_from_suite("Whatever"), std::make_pair(std::string(), std::string()));
}

TEST(TestOutcomes, CollectsJsonVerdictsConsoleVerdictsAndTestsNeverReached) {
  const fs::path dir = fs::temp_directory_path() / "opmatrix-gtest-json-test";
  fs::remove_all(dir);
  fs::create_directories(dir);
  // nms_correctness finished: its JSON has everything (tags, skip reasons, times).
  write(dir / "nms_correctness.json", R"({"testsuites": [{"name": "NmsCorrectness", "testsuite": [
      {"name": "Matches/Float", "status": "RUN", "result": "COMPLETED", "time": "0.25s", "op": "nms", "check": "correctness"},
      {"name": "CudaAgrees", "status": "RUN", "result": "SKIPPED", "time": "0s", "op": "nms", "check": "device",
       "skip_reason": "torch built without CUDA"},
      {"name": "DISABLED_Slow", "status": "NOTRUN", "result": "SUPPRESSED", "time": "0s"}]}]})");
  write(dir / "nms_correctness.list", "NmsCorrectness.Matches/Float\nNmsCorrectness.CudaAgrees\n");
  // registration failed one test: JSON (with the failure) wins over the console.
  write(dir / "registration.json", R"({"testsuites": [{"name": "OpRegistration", "testsuite": [
      {"name": "Load/nms", "status": "RUN", "result": "COMPLETED", "time": "0.003s", "op": "nms", "check": "load"},
      {"name": "CudaKernel/nms", "status": "RUN", "result": "COMPLETED", "time": "0.001s", "op": "nms",
       "check": "registration", "failures": [{"failure": "opmatrix::nms has no CUDA kernel", "type": ""}]}]}]})");
  // roi_align_correctness crashed in its second test; a third was never reached. A JSON
  // half-written by an earlier crash must not count.
  write(dir / "roi_align_correctness.list", "RoiAlignCorrectness.Empty\nRoiAlignCorrectness.Big\nRoiAlignCorrectness.Never\n");
  write(dir / "roi_align_correctness.json", "{ truncated");
  // roi_align_meta timed out in its only test.
  write(dir / "roi_align_meta.list", "RoiAlignMeta.Sizes\n");
  // nms_device never reached main(): no files at all.

  auto t = collect_test_outcomes(kCtestLog, dir.string());
  fs::remove_all(dir);
  std::map<std::string, TestOutcome> by;
  for (const auto& o : t) by[o.name] = o;
  ASSERT_EQ(t.size(), 9u);

  EXPECT_EQ(by["NmsCorrectness.Matches/Float"].status, Status::pass);
  EXPECT_EQ(by["NmsCorrectness.Matches/Float"].op, "nms");
  EXPECT_EQ(by["NmsCorrectness.Matches/Float"].check, "correctness");
  EXPECT_DOUBLE_EQ(by["NmsCorrectness.Matches/Float"].seconds, 0.25);
  EXPECT_EQ(by["NmsCorrectness.Matches/Float"].binary, "nms_correctness");
  EXPECT_EQ(by["NmsCorrectness.CudaAgrees"].status, Status::skip);
  EXPECT_EQ(by["NmsCorrectness.CudaAgrees"].check, "device");
  EXPECT_EQ(by["NmsCorrectness.CudaAgrees"].message, "torch built without CUDA");
  EXPECT_EQ(by.count("NmsCorrectness.DISABLED_Slow"), 0u);

  EXPECT_EQ(by["OpRegistration.CudaKernel/nms"].status, Status::fail);
  EXPECT_EQ(by["OpRegistration.CudaKernel/nms"].message, "opmatrix::nms has no CUDA kernel");
  EXPECT_EQ(by["OpRegistration.Load/nms"].check, "load");

  EXPECT_EQ(by["RoiAlignCorrectness.Empty"].status, Status::skip);
  EXPECT_EQ(by["RoiAlignCorrectness.Big"].status, Status::crash);
  EXPECT_EQ(by["RoiAlignCorrectness.Big"].message.rfind("Exception: SegFault", 0), 0u);
  EXPECT_EQ(by["RoiAlignCorrectness.Big"].op, "roi_align");  // no JSON: the suite name tells
  EXPECT_EQ(by["RoiAlignCorrectness.Big"].check, "correctness");
  EXPECT_EQ(by["RoiAlignCorrectness.Never"].status, Status::error);
  EXPECT_EQ(by["RoiAlignCorrectness.Never"].message,
            "not run: the test process (roi_align_correctness) crashed (Exception: SegFault) during "
            "RoiAlignCorrectness.Big");

  EXPECT_EQ(by["RoiAlignMeta.Sizes"].status, Status::timeout);
  EXPECT_EQ(by["RoiAlignMeta.Sizes"].check, "meta");

  EXPECT_EQ(by["nms_device"].status, Status::error);
  EXPECT_EQ(by["nms_device"].op, "nms");
  EXPECT_EQ(by["nms_device"].check, "device");
  EXPECT_NE(by["nms_device"].message.find("libcuda.so.1"), std::string::npos);
}

TEST(TestOutcomes, NothingWhenNoBinaryStarted) {
  const fs::path dir = fs::temp_directory_path() / "opmatrix-gtest-empty-test";
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string log = R"(Test project /build
        Start  1: nms_device
 1/1 Test  #1: nms_device .......................***Failed    0.01 sec
/build/nms_device: error while loading shared libraries: libcuda.so.1: cannot open shared object file
)";
  EXPECT_TRUE(collect_test_outcomes(log, dir.string()).empty());
  EXPECT_TRUE(collect_test_outcomes("", dir.string()).empty());
  fs::remove_all(dir);
}

}  // namespace opmatrix
