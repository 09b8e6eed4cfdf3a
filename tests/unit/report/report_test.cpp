// The report renders from results files alone. Fixtures: tests/data/results (one real host
// result plus two synthetic cells: a torchvision CUDA failure and a skipped GPU cell) and
// tests/data/results-bad (a newer schema and a truncated file beside a good one).
#include <regex>

#include <gtest/gtest.h>

#include "report/extra_tables.h"
#include "report/render.h"

namespace opmatrix {

namespace {
const std::string kResults = std::string(OPMATRIX_TEST_DATA) + "/results";
const std::string kBad = std::string(OPMATRIX_TEST_DATA) + "/results-bad";

int count(const std::string& text, const std::string& what) {
  int n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++n;
  return n;
}
}  // namespace

TEST(Report, LoadsEveryResultsFileSortedById) {
  ResultsSet set = load_results(kResults);
  EXPECT_TRUE(set.errors.empty());
  ASSERT_EQ(set.cells.size(), 3u);
  EXPECT_EQ(cell_id(set.cells[0]), "bookworm-torch1.13-cpu");
  EXPECT_EQ(cell_id(set.cells[2]), "pypi-torch2.5.1-cu12.4");
}

TEST(Report, CorruptedAndNewerFilesAreErrorsAndTheRestStillRenders) {
  ResultsSet set = load_results(kBad);
  ASSERT_EQ(set.cells.size(), 1u);
  ASSERT_EQ(set.errors.size(), 2u);
  EXPECT_NE(set.errors[0].find("newer than this opmatrix reads"), std::string::npos) << set.errors[0];
  EXPECT_NE(set.errors[1].find("not valid JSON"), std::string::npos) << set.errors[1];
  const std::string md = render_markdown(set);
  EXPECT_NE(md.find("gpu-host"), std::string::npos);
  EXPECT_NE(md.find("truncated.json"), std::string::npos);
}

TEST(Report, MarkdownTableHasRowsByTorchAndColumnsByCuda) {
  const std::string md = render_markdown(load_results(kResults));
  EXPECT_NE(md.find("| torch | torchvision | cpu | CUDA 12.4 | CUDA 13.0 |"), std::string::npos) << md;
  EXPECT_NE(md.find("| 2.11.0 | 0.26.0 | | | ○ not run |"), std::string::npos) << md;
  EXPECT_NE(md.find("| 2.5.1 | 0.20.1 | | ✘ failure | |"), std::string::npos) << md;
  EXPECT_NE(md.find("| 1.13.1 | 0.14.1 | ✔ pass | | |"), std::string::npos) << md;
  EXPECT_NE(md.find("reproduce: `python3 -c 'import torchvision'`"), std::string::npos);
}

// Every red carries its evidence and the log of the step it comes from (the registry names
// the steps of each check).
TEST(Report, MarkdownDiagnosesCarryEvidenceAndLog) {
  ResultsSet set = load_results(kResults);
  CellResult* cell = nullptr;
  for (auto& r : set.cells)
    if (!r.steps.empty()) cell = &r;
  ASSERT_NE(cell, nullptr);
  CheckResult c;
  c.check = "correctness";
  c.op = "nms";
  c.status = Status::fail;
  c.message = "nms keeps a box it should drop";
  c.diagnosis = Diagnosis{"numerical_mismatch", "kept box 3", "fix nms", "ctest -R nms", "Expected: 3 Actual: 4"};
  cell->checks.push_back(c);
  std::string test_log;
  for (const auto& s : cell->steps)
    if (s.name == "test") test_log = s.log;
  ASSERT_FALSE(test_log.empty());
  const std::string md = render_markdown(set);
  EXPECT_NE(md.find("  - evidence: `Expected: 3 Actual: 4`"), std::string::npos) << md;
  EXPECT_NE(md.find("  - log: [" + test_log + "](" + test_log + ")"), std::string::npos) << md;
}

TEST(Report, JunitCountsMatchTheResults) {
  ResultsSet set = load_results(kResults);
  int checks = 0, bad = 0, skipped = 0;
  for (const auto& r : set.cells)
    for (const auto& c : r.checks) {
      ++checks;
      bad += is_bad(c.status);
      skipped += c.status == Status::skip || c.status == Status::xfail;
    }
  const std::string xml = render_junit(set);
  EXPECT_EQ(count(xml, "<testcase "), checks);
  EXPECT_EQ(count(xml, "<failure "), bad);
  EXPECT_EQ(count(xml, "<skipped "), skipped);
  EXPECT_EQ(count(xml, "<testsuite "), 3);
  EXPECT_NE(xml.find("tests=\"" + std::to_string(checks) + "\" failures=\"" + std::to_string(bad) + "\""),
            std::string::npos);
  EXPECT_NE(xml.find("&quot;Could not run &apos;torchvision::nms&apos;"), std::string::npos);  // escaped
}

TEST(Report, HtmlIsSelfContainedAccessibleAndEscaped) {
  const std::string html = render_html(load_results(kResults));
  EXPECT_NE(html.find("<table id=\"compat\"><caption>"), std::string::npos);
  EXPECT_NE(html.find("<th scope=\"col\">CUDA 12.4</th>"), std::string::npos);
  EXPECT_NE(html.find("<details class=\"cell\" id=\"cell-pypi-torch2.5.1-cu12.4\">"), std::string::npos);
  EXPECT_EQ(html.find("<script>alert(1)</script>"), std::string::npos);
  EXPECT_NE(html.find("&lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos);
  // Nothing fetched from elsewhere: no external scripts, styles, fonts or images.
  EXPECT_FALSE(std::regex_search(html, std::regex(R"((src|href)=\"(https?:)?//)")));
  EXPECT_EQ(html.find("<link"), std::string::npos);
}

TEST(Report, JsonMergesCellsAndTheTable) {
  auto j = nlohmann::json::parse(render_json(load_results(kResults)));
  EXPECT_EQ(j["schema"], "opmatrix-report");
  EXPECT_EQ(j["cells"].size(), 3u);
  EXPECT_EQ(j["table"]["columns"], nlohmann::json::array({"cpu", "12.4", "13.0"}));
  EXPECT_EQ(j["table"]["rows"][0]["torch"], "2.11.0");
  EXPECT_EQ(j["table"]["rows"][1]["entries"]["12.4"]["verdict"], "fail");
}

TEST(Report, ArchTableKeepsArchSpecificVariantsApartInNumericOrder) {
  ResultsSet set;
  CellResult r;
  r.cell = {{"id", "c"}, {"cuda", "12.8"}};
  for (const char* arch : {"10.0", "9.0a", "9.0", "12.0"}) {
    CheckResult c;
    c.check = "arch";
    c.arch = arch;
    r.checks.push_back(c);
  }
  set.cells.push_back(r);
  const auto tables = extra_tables(set);
  ASSERT_EQ(tables.size(), 1u);
  EXPECT_EQ(tables[0].columns, (std::vector<std::string>{"cell", "sm_90", "sm_90a", "sm_100", "sm_120"}));
}

}  // namespace opmatrix
