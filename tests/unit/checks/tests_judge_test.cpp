// The `tests` check from run_tests.py's JSON: failing tests one by one with their ids and a
// command for each, passes counted per op they name, GPU skips neither passes nor failures.
#include <gtest/gtest.h>

#include "checks/tests/tests_judge.h"
#include "told_apart.h"

namespace opmatrix {
namespace {

using json = nlohmann::json;

TestsContext context() {
  TestsContext tc;
  tc.ops = {"extension_cpp::mymuladd", "extension_cpp::mymul", "extension_cpp::myadd_out"};
  tc.repro_for = [](const std::string& id) { return "run " + id; };
  tc.repro = "run all";
  tc.log = "log";
  return tc;
}

json test(const std::string& id, const std::string& outcome, const std::string& message = "") {
  return {{"id", id}, {"outcome", outcome}, {"message", message}};
}

// A test file pytest could not import, as run_tests.py reads it back from the JUnit XML.
json not_collected(const std::string& file, const std::string& module, bool own = false, bool top_installed = false) {
  const std::string message = module.empty() ? "RuntimeError: boom at import" : "ModuleNotFoundError: No module named '" + module + "'";
  return {{"file", file}, {"module", module}, {"own", own}, {"top_installed", top_installed}, {"message", message}};
}

// The detection library measured: 12 tests pass, 8 files lack cv2 (5), scipy (3, one of them also
// onnx: pytest names the first) and onnx (1 more); the project requires numpy only.
json detection_report(int passed) {
  json tests = json::array();
  for (int i = 0; i < passed; ++i) tests.push_back(test("tests/test_ok.py::test_" + std::to_string(i), "passed"));
  json errors = json::array();
  for (int i = 1; i <= 5; ++i) errors.push_back(not_collected("tests/test_cv" + std::to_string(i) + ".py", "cv2"));
  for (int i = 1; i <= 2; ++i) errors.push_back(not_collected("tests/test_sp" + std::to_string(i) + ".py", "scipy.ndimage"));
  errors.push_back(not_collected("tests/test_export.py", "onnx"));
  return {{"ok", true}, {"exit_code", 1}, {"junit", true}, {"tests", tests}, {"collection_errors", errors}};
}

TestsContext with_requirements(const json& requirements) {
  TestsContext tc = context();
  tc.resolved = {{"ok", true}, {"requirements", requirements}, {"install", json::array()}};
  return tc;
}

}  // namespace

TEST(TestsNamingOps, AnOpStandsInATestsNameAsAWordTheLongestWinning) {
  const auto ops = context().ops;
  EXPECT_EQ(ops_named_by("test/test_extension.py::TestMyMulAdd::test_mymuladd_grad", ops),
            std::vector<std::string>{"extension_cpp::mymuladd"});
  EXPECT_EQ(ops_named_by("test/test_x.py::test_myadd_out", ops), std::vector<std::string>{"extension_cpp::myadd_out"});
  EXPECT_TRUE(ops_named_by("test/test_mymul.py::test_other", ops).empty());  // the file names no op
  EXPECT_TRUE(ops_named_by("t.py::test_mymulx", ops).empty());
  // extension-cpp's own suite: the class names the op, the method the case.
  EXPECT_EQ(ops_named_by("test/test_extension.py::TestMyMulAdd::test_correctness_cpu", ops),
            std::vector<std::string>{"extension_cpp::mymuladd"});
  EXPECT_EQ(ops_named_by("test/test_extension.py::TestMyAddOut::test_opcheck_cuda", ops),
            std::vector<std::string>{"extension_cpp::myadd_out"});
  EXPECT_EQ(ops_named_by("t.py::test_batched_mymul[cpu-float32]", ops), std::vector<std::string>{"extension_cpp::mymul"});
}

TEST(TestsNamingOps, GpuSkipsAreToldFromOtherSkips) {
  testbed::expect_told_apart(skipped_for_gpu, {"requires CUDA", "no GPU available", "Skipped: cuda not available"},
                             {"slow test; run with --runslow", "scudaxx"});
}

TEST(TestsCheck, EachFailingTestIsAFindingWithItsIdMessageAndCommand) {
  const json report = {{"ok", true}, {"exit_code", 1}, {"junit", true},
                       {"tests", {test("t.py::test_mymuladd", "failed", "AssertionError: 3 != 4"),
                                  test("t.py::test_mymuladd_grad", "passed"), test("t.py::test_myadd_out", "passed"),
                                  test("t.py::test_setup", "error", "fixture 'x' not found")}}};
  const auto out = tests_results(report, context());
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0].op, "extension_cpp::mymuladd");
  EXPECT_EQ(out[0].status, Status::fail);
  EXPECT_EQ(out[0].message, "t.py::test_mymuladd failed: AssertionError: 3 != 4");
  ASSERT_TRUE(out[0].diagnosis);
  EXPECT_EQ(out[0].diagnosis->repro, "run t.py::test_mymuladd");
  EXPECT_EQ(out[0].tests, std::vector<std::string>{"t.py::test_mymuladd"});
  EXPECT_EQ(out[1].op, "");
  EXPECT_EQ(out[1].message, "t.py::test_setup errored: fixture 'x' not found");
  // mymuladd failed, so its passing grad test gives no pass; myadd_out's does.
  EXPECT_EQ(out[2].op, "extension_cpp::myadd_out");
  EXPECT_EQ(out[2].status, Status::pass);
}

TEST(TestsCheck, GpuSkipsAreSaidAndTheRestPasses) {
  const json report = {{"ok", true}, {"exit_code", 0}, {"junit", true},
                       {"tests", {test("t.py::test_a", "passed"), test("t.py::test_cuda", "skipped", "requires CUDA"),
                                  test("t.py::test_cuda2", "skipped", "requires CUDA")}}};
  const auto out = tests_results(report, context());
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].status, Status::skip);
  EXPECT_EQ(out[0].message, "2 tests need a GPU and skip here, neither passed nor failed: 'requires CUDA' (2)");
  EXPECT_EQ(out[1].status, Status::pass);
  EXPECT_EQ(out[1].message, "all 1 tests pass (2 skipped)");
}

TEST(TestsCheck, ACommandThatFailsWithoutJunitOrWithNoFailingTestIsAFail) {
  const auto bare = tests_results({{"ok", true}, {"exit_code", 2}, {"junit", false}}, context());
  ASSERT_EQ(bare.size(), 1u);
  EXPECT_EQ(bare[0].status, Status::fail);
  EXPECT_EQ(bare[0].message, "the test command failed (exit 2); it wrote no JUnit XML, so which tests failed is in the log");
  const auto other = tests_results({{"ok", true}, {"exit_code", 3}, {"junit", true}, {"tests", json::array()}}, context());
  ASSERT_EQ(other.size(), 1u);
  EXPECT_EQ(other[0].status, Status::fail);
  EXPECT_EQ(other[0].message, "the test command exited 3 with no failing test in its JUnit XML");
  // pytest's exit 5, nothing collected, nothing broken: a folder of scripts (fused-ssim's tests/),
  // a limit of what was checked, never the library's red.
  const auto none = tests_results({{"ok", true}, {"exit_code", 5}, {"junit", true}, {"tests", json::array()}}, context());
  ASSERT_EQ(none.size(), 1u);
  EXPECT_EQ(none[0].status, Status::skip);
  ASSERT_TRUE(none[0].diagnosis);
  EXPECT_EQ(none[0].diagnosis->kind, "suite_collected_nothing");
  EXPECT_EQ(none[0].message.rfind("pytest collected no tests", 0), 0u) << none[0].message;
  const auto plain = tests_results({{"ok", true}, {"exit_code", 0}, {"junit", false}}, context());
  EXPECT_EQ(plain[0].status, Status::pass);
}

// A module nothing the project requires provides: ONE limit per module (a skip the verdict names),
// with its distribution and the files that need it; what ran counts.
TEST(TestsCollection, AModuleTheMatrixDoesNotInstallIsOneLimitPerModule) {
  const auto out = tests_results(detection_report(12), with_requirements({"numpy>=1.20"}));
  ASSERT_EQ(out.size(), 4u);
  EXPECT_EQ(out[0].status, Status::skip);
  ASSERT_TRUE(out[0].diagnosis);
  EXPECT_EQ(out[0].diagnosis->kind, "suite_needs_module");
  EXPECT_EQ(out[0].message, "the suite needs the module 'cv2' (distribution opencv-python-headless) in 5 test files "
                            "(tests/test_cv1.py, tests/test_cv2.py, tests/test_cv3.py and 2 more), which the matrix "
                            "does not install: add opencv-python-headless to test_requires");
  EXPECT_EQ(out[0].tests.size(), 5u);
  EXPECT_EQ(out[0].diagnosis->repro, "run tests/test_cv1.py");
  EXPECT_NE(out[0].diagnosis->fix.find("test_requires"), std::string::npos);
  EXPECT_EQ(out[1].message.substr(0, 73), "the suite needs the module 'scipy' (distribution scipy) in 2 test files (");
  EXPECT_EQ(out[2].message.substr(0, 70), "the suite needs the module 'onnx' (distribution onnx) in 1 test file (");
  EXPECT_EQ(out[3].status, Status::pass);
  EXPECT_EQ(out[3].message, "12 tests pass; 8 test files not collected: the suite needs cv2, scipy, onnx, which the "
                            "matrix does not install");
}

TEST(TestsCollection, WhereNothingRanItSaysZeroTestsRan) {
  const auto out = tests_results(detection_report(0), with_requirements(json::array()));
  ASSERT_EQ(out.size(), 4u);
  EXPECT_EQ(out[3].status, Status::skip);
  EXPECT_EQ(out[3].message, "0 tests ran: 8 test files not collected: the suite needs cv2, scipy, onnx, which the "
                            "matrix does not install");
}

// A module the project's requirements provide (any of the distributions that provide it) and
// still missing is a red, as is a module the requirements step could not get.
TEST(TestsCollection, AModuleItsRequirementsProvideStaysARed) {
  const auto out = tests_results(detection_report(12), with_requirements({"opencv-python>=4", "scipy"}));
  ASSERT_EQ(out.size(), 3u) << "no summary beside reds";
  EXPECT_EQ(out[0].status, Status::fail);
  EXPECT_EQ(out[0].diagnosis->kind, "required_module_missing");
  EXPECT_NE(out[0].message.find("which the project's requirements provide, and the cell still lacks it"), std::string::npos) << out[0].message;
  EXPECT_EQ(out[1].diagnosis->kind, "required_module_missing");
  EXPECT_EQ(out[2].status, Status::skip);  // onnx: still the matrix's

  TestsContext failed = context();
  CheckResult req;
  req.check = "requirements";
  req.status = Status::fail;
  req.message = "scipy>=1.15 cannot be had for the cell's Python 3.9";
  req.diagnosis = Diagnosis{"unresolvable", req.message, "require a release that exists for Python 3.9", "", ""};
  failed.requirements_failed = req;
  const auto cause = tests_results(detection_report(0), failed);
  EXPECT_EQ(cause[0].status, Status::fail);
  EXPECT_EQ(cause[0].diagnosis->kind, "requirement_not_installed");
  EXPECT_EQ(cause[0].diagnosis->fix, "require a release that exists for Python 3.9");
  EXPECT_EQ(cause.back().message, "0 tests ran: 8 test files not collected: 8 fail at import");
}

// The library's or the suite's own module, torch's, a package installed without a part of it, and
// an import error that is no missing module: reds, one per file, with the error pytest saw.
TEST(TestsCollection, OtherCollectionErrorsStayRedsWithTheirMessage) {
  const json report = {{"ok", true}, {"exit_code", 1}, {"junit", true},
                       {"tests", {test("tests/test_ok.py::test_a", "passed")}},
                       {"collection_errors", {not_collected("tests/test_boom.py", ""), not_collected("tests/test_h.py", "helpers.x", true),
                                              not_collected("tests/test_t.py", "torch._dynamo"),
                                              not_collected("tests/test_m.py", "mmcv._ext", false, true)}}};
  const auto out = tests_results(report, with_requirements(json::array()));
  ASSERT_EQ(out.size(), 4u) << "four reds, no summary beside them";
  EXPECT_EQ(out[0].message, "tests/test_boom.py could not be collected: RuntimeError: boom at import");
  EXPECT_EQ(out[0].status, Status::fail);
  EXPECT_EQ(out[0].diagnosis->kind, "test_not_collected");
  EXPECT_EQ(out[0].diagnosis->repro, "run tests/test_boom.py");
  EXPECT_NE(out[1].message.find("(the module 'helpers.x' is the library's or its suite's own)"), std::string::npos);
  EXPECT_NE(out[2].message.find("torch family"), std::string::npos);
  EXPECT_NE(out[3].message.find("the cell has 'mmcv', but not 'mmcv._ext'"), std::string::npos);
}

}  // namespace opmatrix

namespace opmatrix {

// A test that needs what no cell gives (the network, data a maintainer downloads by hand) is
// neither passed nor failed here: one line per need, with the ids; pytest's exit 1 is theirs.
TEST(TestsCheck, TestsThatNeedTheNetworkOrDataTheRepositoryLacksAreSaidOnce) {
  nlohmann::json report = {{"ok", true}, {"exit_code", 1}, {"junit", true}, {"tests", nlohmann::json::array({
      {{"id", "tests/test_a.py::test_ok"}, {"outcome", "passed"}, {"message", ""}},
      {{"id", "tests/test_export.py::TestTracing::testRetinaNet"}, {"outcome", "failed"},
       {"message", "urllib.error.URLError: <urlopen error [Errno -3] Temporary failure in name resolution>"}},
      {{"id", "tests/test_engine.py::test_trainer"}, {"outcome", "failed"},
       {"message", "FileNotFoundError: [Errno 2] No such file or directory: 'datasets/coco/annotations/x.json'"}},
      {{"id", "tests/test_io.py::test_abs"}, {"outcome", "failed"},
       {"message", "FileNotFoundError: [Errno 2] No such file or directory: '/tmp/out/x.json'"}}})}};
  TestsContext tc;
  tc.repro = "run all";
  const auto out = tests_results(report, tc);
  std::vector<std::string> skips, fails;
  for (const auto& c : out) (c.status == Status::skip ? skips : c.status == Status::fail ? fails : skips).push_back(c.message);
  ASSERT_EQ(fails.size(), 1u) << fails.size();
  EXPECT_NE(fails[0].find("tests/test_io.py::test_abs failed"), std::string::npos);  // an absolute path: the test's own
  EXPECT_TRUE(std::any_of(skips.begin(), skips.end(), [](const std::string& m) {
    return m.rfind("1 test needs the network", 0) == 0 && m.find("testRetinaNet") != std::string::npos;
  }));
  EXPECT_TRUE(std::any_of(skips.begin(), skips.end(), [](const std::string& m) {
    return m.rfind("1 test needs data files the repository does not hold", 0) == 0;
  }));
}

}  // namespace opmatrix
