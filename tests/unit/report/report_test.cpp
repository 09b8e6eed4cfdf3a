// The report renders from results files alone. Fixtures: tests/data/results (one real host
// result plus two synthetic cells: a torchvision CUDA failure and a skipped GPU cell) and
// tests/data/results-bad (a newer schema and a truncated file beside a good one).
#include <algorithm>
#include <regex>

#include <gtest/gtest.h>

#include "../results/check_result_fixture.h"
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
  // Each entry: the verdict in words, linked to its cell's section.
  EXPECT_NE(md.find("| 2.11.0 | 0.26.0 |  |  | [○ not run: runs in a GPU machine's own environment](#cell-gpu-host) |"),
            std::string::npos) << md;
  // The whole cause, cut at a word (never at its first ": ").
  EXPECT_NE(md.find("| 2.5.1 | 0.20.1 |  | [✘ broken: torchvision::nms has no CUDA kernel although torch has CUDA "
                    "12.4: users get \"Could not run 'torchvision::nms' … ‼ not as declared in "
                    "matrix.yaml](#cell-pypi-torch2.5.1-cu12.4) |  |"),
            std::string::npos) << md;
  EXPECT_NE(md.find("| 1.13.1 | 0.14.1 | [✔ works](#cell-bookworm-torch1.13-cpu) |  |  |"), std::string::npos) << md;
  EXPECT_NE(md.find("<a id=\"cell-pypi-torch2.5.1-cu12.4\"></a>"), std::string::npos) << md;
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
  // One more test per cell: its verdict. The broken, undeclared pypi cell fails it; the skipped
  // GPU cell skips it; the working host cell passes it.
  checks += 3;
  bad += 1;
  skipped += 1;
  const std::string xml = render_junit(set);
  EXPECT_EQ(count(xml, "<testcase "), checks);
  EXPECT_EQ(count(xml, "<failure "), bad);
  EXPECT_EQ(count(xml, "<skipped "), skipped);
  EXPECT_NE(xml.find("<property name=\"verdict\" value=\"✘ broken: torchvision::nms has no CUDA kernel"),
            std::string::npos) << xml;
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

// The stable-ABI build is its own row, its pairs judged against its promise; a load that then
// computes wrong is red though it loads; the prediction's agreement and every disagreement are notes.
TEST(Report, LoadMatrixShowsStableRowsThePromiseCasesAndPrediction) {
  ResultsSet set;
  set.cross_load = nlohmann::json::parse(R"({"schema_version": 2, "kind": "opmatrix-cross-load",
    "builds": [{"cell": "a", "abi": "aten"}, {"cell": "a", "abi": "stable", "target": "2.10"}],
    "runtimes": [{"cell": "old"}, {"cell": "new"}],
    "pairs": [
      {"built_in": "a", "abi": "aten", "run_in": "old", "outcome": "undefined_symbol", "summary": "undefined symbol: f"},
      {"built_in": "a", "abi": "aten", "run_in": "new", "outcome": "loads", "computes": "fail",
       "cases": {"tests": 9}, "summary": "loads, but 1 of 4 correctness binaries fail"},
      {"built_in": "a", "abi": "stable", "run_in": "old", "outcome": "undefined_symbol", "promised": "undefined_symbol",
       "as_promised": true, "summary": "undefined symbol: torch_parallel_for"},
      {"built_in": "a", "abi": "stable", "run_in": "new", "outcome": "missing_library", "promised": "loads",
       "as_promised": false, "summary": "missing libtorch_cpu.so.2.14"}],
    "prediction": {"pairs": 4, "agree": 3, "disagree": ["a in new: predicted loads, measured missing_library"]},
    "runtimes_unavailable": ["gone: its image localhost/x:1 is gone; `opmatrix run --cell gone --images-only` rebuilds it"]})");
  const auto tables = extra_tables(set);
  ASSERT_EQ(tables.size(), 1u);
  const Grid& g = tables[0];
  ASSERT_EQ(g.rows.size(), 2u);
  EXPECT_EQ(g.rows[1][0], "a · stable ABI ≥ 2.10");
  EXPECT_EQ(g.rows[0][2], "✔ loads · ✘ computes wrong");
  EXPECT_EQ(g.classes[0][1], "fail");
  EXPECT_EQ(g.rows[1][1], "✘ undefined symbol (as promised)");
  EXPECT_EQ(g.classes[1][0], "pass");
  EXPECT_EQ(g.rows[1][2], "‼ ✘ missing library (promised: loads)");
  EXPECT_EQ(g.classes[1][1], "fail");
  const std::string md = grid_markdown(g);
  EXPECT_NE(md.find("agrees with 3 of 4 measured pairs"), std::string::npos);
  EXPECT_NE(md.find("prediction ≠ measurement: a in new: predicted loads"), std::string::npos);
  EXPECT_NE(md.find("not run in gone: its image localhost/x:1 is gone"), std::string::npos) << md;
}

namespace {
CheckResult behaviour(const std::string& op, const std::string& check, Status s, const std::string& subtest = "",
                      const std::string& message = "") {
  CheckResult c = check_result(op, check, s, message, subtest);
  if (!message.empty()) c.sample = op + "(f32[8,4])";
  return c;
}
}  // namespace

// Our ops get a row per cell and op (opcheck's four sub-tests, then compile, export,
// fake-device); torchvision's a row per runtime; every red is a note with its sub-test, sample
// and torch's message.
TEST(Report, BehaviourTablesShowEachSubtestAndCheckPerOp) {
  ResultsSet set;
  for (const char* id : {"a-cpu", "b-cpu"}) {  // one runtime, two cells: torchvision's row once
    CellResult r;
    r.cell = {{"id", id}, {"torch", "2.6.0"}, {"torchvision", "0.21.0"}, {"cuda", "none"}};
    for (const char* sub : {"test_schema", "test_autograd_registration", "test_aot_dispatch_dynamic"})
      r.checks.push_back(behaviour("nms", "opcheck", Status::pass, sub));
    r.checks.push_back(behaviour("nms", "opcheck", Status::fail, "test_faketensor", "Shapes [4] and [8] are not equal!"));
    r.checks.push_back(behaviour("nms", "compile", Status::xfail, "", "output[1]: shape [8], expected [4]"));
    r.checks.back().expected_reason = "upper-bound Meta";
    r.checks.push_back(behaviour("nms", "export", Status::pass));
    r.checks.push_back(behaviour("nms", "fake-device", Status::skip));
    r.checks.push_back(behaviour("torchvision::nms", "opcheck", Status::skip));  // no opcheck in this torch
    r.checks.push_back(behaviour("torchvision::nms", "fake-device", Status::skip));
    set.cells.push_back(r);
  }
  const auto tables = behaviour_tables(set);
  ASSERT_EQ(tables.size(), 2u);
  const Grid& ours = tables[0];
  EXPECT_EQ(ours.columns, (std::vector<std::string>{"cell", "op", "opcheck", "compile", "export", "fake-device"}));
  ASSERT_EQ(ours.rows.size(), 2u);
  EXPECT_EQ(ours.rows[0], (std::vector<std::string>{"a-cpu", "nms", "✔ ✔ ✘ ✔", "⚠", "✔", "○"}));
  EXPECT_EQ(ours.classes[0], (std::vector<std::string>{"", "fail", "xfail", "pass", "notrun"}));
  ASSERT_EQ(ours.notes.size(), 4u);
  EXPECT_EQ(ours.notes[0], "a-cpu · nms · opcheck test_faketensor on nms(f32[8,4]): Shapes [4] and [8] are not equal!");
  EXPECT_EQ(ours.notes[1], "a-cpu · nms · compile (expected: upper-bound Meta)") << "the reason says it: one line";
  const Grid& tv = tables[1];
  EXPECT_EQ(tv.columns, (std::vector<std::string>{"torch · torchvision · CUDA (cell)", "nms"}));
  ASSERT_EQ(tv.rows.size(), 1u);  // the same runtime twice is one row
  EXPECT_EQ(tv.rows[0], (std::vector<std::string>{"2.6.0 · 0.21.0 · none (a-cpu)", "○ ○ ○ ○ | ○"}));
  EXPECT_NE(render_markdown(set).find("## Behaviour per op"), std::string::npos);
}

TEST(Report, ExpectedBehaviourFailuresAreOneNoteLinePerCheckAndReason) {
  ResultsSet set;
  CellResult r;
  r.cell = {{"id", "scatter"}, {"torch", "2.5.1"}, {"torchvision", "0.20.1"}, {"cuda", "12.4"}};
  for (const char* op : {"scatter_sum", "gather_coo"}) {
    r.checks.push_back(behaviour(op, "compile", Status::xfail, "", "TorchRuntimeError: ..."));
    r.checks.back().expected_reason = "no fake kernel";
  }
  r.checks.push_back(behaviour("gather_coo", "export", Status::fail, "", "boom"));
  set.cells.push_back(r);
  const Grid ours = behaviour_tables(set)[0];
  EXPECT_EQ(ours.notes, (std::vector<std::string>{"scatter · gather_coo · export on gather_coo(f32[8,4]): boom",
                                                  "scatter · scatter_sum, gather_coo · compile (expected: no fake kernel)"}));
}

// A project's row judges the project: torchvision's ops, checked in the same cell, have their
// own grid and do not colour it.
TEST(Report, ProjectRowsLeaveTorchvisionsOpsToTheirOwnGrid) {
  ResultsSet set;
  CellResult r;
  r.cell = {{"id", "lib-cpu"}, {"torch", "2.6.0"}, {"torchvision", "0.21.0"}, {"cuda", "none"},
            {"project", {{"label", "lib"}, {"kind", "cmake"}, {"namespace", "lib"}}}};
  r.checks.push_back(behaviour("box_iou", "opcheck", Status::pass, "test_schema"));
  r.checks.push_back(behaviour("torchvision::nms", "opcheck", Status::fail, "test_schema", "boom"));
  set.cells.push_back(r);
  const auto tables = extra_tables(set);
  ASSERT_FALSE(tables.empty());
  const Grid& projects = tables[0];
  ASSERT_EQ(projects.id, "projects");
  const auto at = std::find(projects.columns.begin(), projects.columns.end(), "opcheck") - projects.columns.begin();
  ASSERT_LT(static_cast<std::size_t>(at), projects.columns.size());
  EXPECT_EQ(projects.rows.at(0).at(at), "✔ pass");
}

}  // namespace opmatrix

namespace opmatrix {

// A cell that exists to show a broken environment (matrix.yaml's `diagnoses:`) is not a verdict
// on our ops: out of their table, in its own, with what opmatrix says and the fix.
TEST(Report, ACellThatDiagnosesAnEnvironmentIsInItsOwnTableNotOurOps) {
  ResultsSet set;
  CellResult ours, env;
  ours.cell = {{"id", "trixie-cpu"}, {"torch", "2.6.0"}, {"torchvision", "0.21.0"}, {"cuda", "none"}};
  ours.checks.push_back(check_result("", "build", Status::pass));
  env.cell = {{"id", "mismatch"}, {"torch", "2.5.1"}, {"torchvision", "0.22.1"}, {"cuda", "12.4"},
              {"diagnoses", "a torchvision built for another torch"}};
  CheckResult tv = check_result("", "torchvision", Status::xfail, "torchvision's ops do not load");
  tv.diagnosis = Diagnosis{"undefined_symbol", "torchvision 0.22.1 needs symbols torch 2.5.1 lacks",
                           "install the torchvision released with torch 2.5.1 (0.20.1)", "", ""};
  env.checks.push_back(tv);
  set.cells = {ours, env};
  const CompatTable t = build_table(set);
  ASSERT_EQ(t.rows.size(), 1u) << "the environment's cell is no row of our ops";
  EXPECT_EQ(t.rows[0].first, "2.6.0");
  const auto tables = extra_tables(set);
  ASSERT_FALSE(tables.empty());
  const Grid& g = tables[0];
  ASSERT_EQ(g.id, "environments");
  ASSERT_EQ(g.rows.size(), 1u);
  EXPECT_EQ(g.rows[0], (std::vector<std::string>{"mismatch", "torch 2.5.1 · torchvision 0.22.1 · CUDA 12.4",
                                                 "a torchvision built for another torch",
                                                 "torchvision 0.22.1 needs symbols torch 2.5.1 lacks",
                                                 "install the torchvision released with torch 2.5.1 (0.20.1)"}));
  EXPECT_NE(render_markdown(set).find("## Environments opmatrix diagnoses"), std::string::npos);
}

}  // namespace opmatrix
