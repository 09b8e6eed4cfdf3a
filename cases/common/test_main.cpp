// main() of the cases' one binary: gtest_main, the case it runs as, and one listener.
// Every case is a symlink to the binary named after its source file (nms_correctness); run as
// that name, it runs the tests defined in nms_correctness.cpp and no other (and, with
// --gtest_filter, those of them the filter names), so each case is ONE process of its own (one
// libtorch load, not one per test), and a crash or a timeout ends only that case's remaining
// tests. Before the first test runs, the listener writes the names of the tests this run will
// execute to <gtest output dir>/<case>.list, one per line: when the process dies before gtest
// writes its JSON, the harness still knows which tests were never reached
// (harness/src/results/test_outcomes.cpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <string>

namespace {

std::string baseName(const std::string& path) {
  return path.substr(path.rfind('/') == std::string::npos ? 0 : path.rfind('/') + 1);
}

// gtest >= 1.12 reads and sets flags through GTEST_FLAG_GET/SET; older releases through GTEST_FLAG.
#ifdef GTEST_FLAG_GET
#define OPMATRIX_GTEST_FLAG_GET(name) GTEST_FLAG_GET(name)
#define OPMATRIX_GTEST_FLAG_SET(name, value) GTEST_FLAG_SET(name, value)
#else
#define OPMATRIX_GTEST_FLAG_GET(name) ::testing::GTEST_FLAG(name)
#define OPMATRIX_GTEST_FLAG_SET(name, value) (::testing::GTEST_FLAG(name) = (value))
#endif

std::string outputFlag() { return OPMATRIX_GTEST_FLAG_GET(output); }

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
  return flag.substr(colon + 1) + baseName(argv0) + ".list";
}

// gtest's filter syntax, as --gtest_filter reads it: patterns separated by ':', '*' and '?'
// wildcards, and after a '-' the patterns that exclude.
bool matchesPattern(const char* p, const char* s) {
  if (*p == '\0') return *s == '\0';
  if (*p == '*') return matchesPattern(p + 1, s) || (*s != '\0' && matchesPattern(p, s + 1));
  return *s != '\0' && (*p == '?' || *p == *s) && matchesPattern(p + 1, s + 1);
}

bool matchesAny(const std::string& patterns, const std::string& name) {
  std::size_t start = 0;
  while (start <= patterns.size()) {
    const std::size_t end = std::min(patterns.find(':', start), patterns.size());
    if (end > start && matchesPattern(patterns.substr(start, end - start).c_str(), name.c_str())) return true;
    start = end + 1;
  }
  return false;
}

bool filterSelects(const std::string& filter, const std::string& name) {
  const std::size_t dash = filter.find('-');
  const std::string positive = dash == std::string::npos ? filter : filter.substr(0, dash);
  const std::string negative = dash == std::string::npos ? "" : filter.substr(dash + 1);
  return (positive.empty() || matchesAny(positive, name)) && !matchesAny(negative, name);
}

std::string filterFlag() { return OPMATRIX_GTEST_FLAG_GET(filter); }

void setFilterFlag(const std::string& filter) { OPMATRIX_GTEST_FLAG_SET(filter, filter); }

// Run as a case's name: its tests (those of <name>.cpp) that the user's filter selects, as an
// explicit list; a name that is no case's (the binary itself) runs every test.
void selectTheCase(const std::string& caseName) {
  const ::testing::UnitTest& unit = *::testing::UnitTest::GetInstance();
  std::string selected;
  bool isACase = false;
  const std::string filter = filterFlag();
  for (int i = 0; i < unit.total_test_suite_count(); ++i) {
    const ::testing::TestSuite* suite = unit.GetTestSuite(i);
    for (int j = 0; j < suite->total_test_count(); ++j) {
      const ::testing::TestInfo* test = suite->GetTestInfo(j);
      if (baseName(test->file()) != caseName + ".cpp") continue;
      isACase = true;
      const std::string name = std::string(test->test_suite_name()) + "." + test->name();
      if (filterSelects(filter, name)) selected += (selected.empty() ? "" : ":") + name;
    }
  }
  // A case whose tests the filter all leaves out runs none ("-*" excludes every one).
  if (isACase) setFilterFlag(selected.empty() ? "-*" : selected);
}

}  // namespace

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  selectTheCase(baseName(argv[0]));
  const std::string list = listPath(argv[0]);
  if (!list.empty()) ::testing::UnitTest::GetInstance()->listeners().Append(new TestListWriter(list));
  return RUN_ALL_TESTS();
}
