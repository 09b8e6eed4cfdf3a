// Every file in tests/data/malformed/ is a broken matrix that ends with the exact
// diagnostics it must produce, one `# expect: LINE:COL: SEVERITY: MESSAGE` line each.
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <gtest/gtest.h>

#include "cli/app.h"
#include "matrix/load.h"

namespace fs = std::filesystem;

namespace opmatrix {
namespace {

struct CorpusFile {
  std::string name;
  std::string relative_path;  // from the source dir, so messages with paths are stable
  std::set<std::string> expected;
};

void PrintTo(const CorpusFile& f, std::ostream* os) { *os << f.relative_path; }

std::vector<CorpusFile> corpus() {
  std::vector<CorpusFile> files;
  const fs::path dir = fs::path(OPMATRIX_TEST_DATA) / "malformed";
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().extension() != ".yaml") continue;
    CorpusFile f;
    f.name = entry.path().stem().string();
    f.relative_path = "tests/data/malformed/" + entry.path().filename().string();
    std::ifstream in(entry.path());
    std::string line;
    const std::string tag = "# expect: ";
    while (std::getline(in, line))
      if (line.rfind(tag, 0) == 0) f.expected.insert(line.substr(tag.size()));
    files.push_back(f);
  }
  std::sort(files.begin(), files.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
  return files;
}

class MalformedMatrix : public ::testing::TestWithParam<CorpusFile> {
 protected:
  void SetUp() override { fs::current_path(OPMATRIX_SOURCE_DIR); }
};

TEST_P(MalformedMatrix, GivesExactlyTheExpectedDiagnostics) {
  const CorpusFile& f = GetParam();
  ASSERT_FALSE(f.expected.empty()) << f.relative_path << " has no '# expect:' line";
  LoadResult r = load_matrix_file(f.relative_path);
  std::set<std::string> got;
  for (const auto& d : r.diagnostics) {
    std::string s = format_diagnostic(d);
    ASSERT_EQ(s.rfind(f.relative_path + ":", 0), 0u) << s;
    got.insert(s.substr(f.relative_path.size() + 1));
  }
  EXPECT_EQ(got, f.expected);
  EXPECT_FALSE(r.matrix.has_value());
}

TEST_P(MalformedMatrix, ValidateExitsTwoAndPrintsNothingOnStdout) {
  const CorpusFile& f = GetParam();
  std::ostringstream out, err;
  EXPECT_EQ(run_cli({"validate", "--matrix", f.relative_path}, out, err), 2);
  EXPECT_EQ(out.str(), "");
  EXPECT_NE(err.str().find(f.relative_path + ":"), std::string::npos);
  EXPECT_NE(err.str().find(": error: "), std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(Corpus, MalformedMatrix, ::testing::ValuesIn(corpus()),
                         [](const auto& info) { return info.param.name; });

TEST(MalformedCorpus, HasAtLeastFortyFiles) { EXPECT_GE(corpus().size(), 40u); }

}  // namespace
}  // namespace opmatrix
