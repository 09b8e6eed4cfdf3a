// The `tests` check from run_tests.py's JSON: failing tests one by one with their ids and a
// command for each, passes counted per op they name, GPU skips neither passes nor failures.
#include <gtest/gtest.h>

#include "checks/tests/tests_judge.h"

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
  EXPECT_TRUE(skipped_for_gpu("requires CUDA"));
  EXPECT_TRUE(skipped_for_gpu("no GPU available"));
  EXPECT_TRUE(skipped_for_gpu("Skipped: cuda not available"));
  EXPECT_FALSE(skipped_for_gpu("slow test; run with --runslow"));
  EXPECT_FALSE(skipped_for_gpu("scudaxx"));
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
  const auto none = tests_results({{"ok", true}, {"exit_code", 5}, {"junit", true}, {"tests", json::array()}}, context());
  ASSERT_EQ(none.size(), 1u);
  EXPECT_EQ(none[0].status, Status::fail);
  EXPECT_EQ(none[0].message, "the test command exited 5 with no failing test in its JUnit XML (pytest: no tests collected)");
  const auto plain = tests_results({{"ok", true}, {"exit_code", 0}, {"junit", false}}, context());
  EXPECT_EQ(plain[0].status, Status::pass);
}

}  // namespace opmatrix
