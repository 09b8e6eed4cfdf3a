// main() of every case binary: gtest_main plus one listener. Each binary runs as ONE
// process (one libtorch load, not one per test), so a crash or a timeout ends all of its
// remaining tests at once. Before the first test runs, the listener writes the names of
// the tests this run will execute to <gtest output dir>/<binary>.list, one per line: when
// the process dies before gtest writes its JSON, the harness still knows which tests were
// never reached (harness/src/results/test_outcomes.cpp).
#include <gtest/gtest.h>

#include <fstream>
#include <string>

namespace {

// gtest >= 1.12 reads flags through GTEST_FLAG_GET; older releases through GTEST_FLAG.
std::string outputFlag() {
#ifdef GTEST_FLAG_GET
  return GTEST_FLAG_GET(output);
#else
  return ::testing::GTEST_FLAG(output);
#endif
}

class TestListWriter : public ::testing::EmptyTestEventListener {
 public:
  explicit TestListWriter(std::string path) : path_(std::move(path)) {}

  void OnTestProgramStart(const ::testing::UnitTest& unit) override {
    // gtest has applied --gtest_filter by now: should_run() is what this run executes.
    std::ofstream out(path_, std::ios::trunc);
    for (int i = 0; i < unit.total_test_suite_count(); ++i) {
      const ::testing::TestSuite* suite = unit.GetTestSuite(i);
      for (int j = 0; j < suite->total_test_count(); ++j) {
        const ::testing::TestInfo* test = suite->GetTestInfo(j);
        if (test->should_run()) out << test->test_suite_name() << '.' << test->name() << '\n';
      }
    }
  }

 private:
  std::string path_;
};

// "json:/build/gtest/" -> "/build/gtest/<binary>.list"; "" when the output is not a folder.
std::string listPath(const char* argv0) {
  const std::string flag = outputFlag();
  const auto colon = flag.find(':');
  if (colon == std::string::npos || flag.back() != '/') return "";
  std::string binary = argv0;
  binary = binary.substr(binary.rfind('/') == std::string::npos ? 0 : binary.rfind('/') + 1);
  return flag.substr(colon + 1) + binary + ".list";
}

}  // namespace

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  const std::string list = listPath(argv[0]);
  if (!list.empty()) ::testing::UnitTest::GetInstance()->listeners().Append(new TestListWriter(list));
  return RUN_ALL_TESTS();
}
