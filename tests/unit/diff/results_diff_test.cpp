// `opmatrix diff`: the comparison of two results sets (built in code) and the command on real
// results folders and report files written into a temp folder.
#include <algorithm>
#include <filesystem>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "../cli/cli_run.h"
#include "../init/temp_folder.h"
#include "../results/check_result_fixture.h"
#include "diff/diff_render.h"
#include "diff/results_diff.h"
#include "version.h"
#include "report/render.h"
#include "util/atomic_write.h"

namespace opmatrix {

namespace {

CheckResult result(const std::string& op, const std::string& check, Status status, const std::string& subtest = "",
                   const std::string& sample = "") {
  CheckResult c = check_result(op, check, status, fmt::format("{} {}", check, to_string(status)), subtest);
  c.sample = sample;
  if (is_bad(status))
    c.diagnosis = Diagnosis{"numerical_mismatch", op + " " + check + " differs from the reference",
                            "fix the " + op + " kernel", "ctest -R " + op, "Expected: 3 Actual: 4"};
  if (status == Status::xfail) c.expected_reason = "known upstream bug";
  return c;
}

// A cell whose verdict follows from its results, as the runner would write it.
CellResult cell(const std::string& id, std::vector<CheckResult> checks) {
  CellResult r;
  r.harness_version = "0.1.0";
  r.cell = {{"id", id}, {"torch", "2.6.0"}, {"torchvision", "0.21.0"}, {"cuda", "none"}};
  r.started_at = "2026-01-01T00:00:00Z";
  r.seconds = 12.5;
  r.checks = std::move(checks);
  std::vector<Status> statuses;
  for (const auto& c : r.checks) {
    statuses.push_back(c.status);
    if (is_bad(c.status)) r.meets_expectations = false;
  }
  r.status = worst_of(statuses);
  return r;
}

ResultsSet set_of(std::vector<CellResult> cells) {
  ResultsSet s;
  s.cells = std::move(cells);
  std::sort(s.cells.begin(), s.cells.end(),
            [](const CellResult& a, const CellResult& b) { return cell_id(a) < cell_id(b); });
  return s;
}

CellResult good_cpu() {
  return cell("trixie-torch2.6-cpu", {result("", "build", Status::pass), result("nms", "correctness", Status::pass),
                                      result("roi_align", "correctness", Status::pass),
                                      result("nms", "meta", Status::xfail)});
}

CellResult& with(CellResult& r, const std::string& op, const std::string& check, Status status) {
  for (auto& c : r.checks)
    if (c.op == op && c.check == check) c = result(op, check, status, c.subtest, c.sample);
  r = cell(cell_id(r), r.checks);
  return r;
}

}  // namespace

TEST(Diff, IdenticalSetsHaveNoDifferences) {
  const Diff d = diff_results(set_of({good_cpu()}), set_of({good_cpu()}));
  EXPECT_TRUE(d.empty());
  EXPECT_FALSE(has_regressions(d));
  EXPECT_EQ(d.cells_compared, 1u);
  EXPECT_EQ(d.results_compared, 4u);
  EXPECT_EQ(diff_summary(d), "no differences");
  EXPECT_NE(render_diff_markdown(d, "a", "b").find("No differences"), std::string::npos);
}

TEST(Diff, TimesCacheKeysLogsAndMessagesAreNotDifferences) {
  CellResult head = good_cpu();
  head.seconds = 99;
  head.started_at = "2027-01-01T00:00:00Z";
  head.cache_key = "abc";
  head.cached = true;
  head.harness_version = "0.2.0";
  head.steps.push_back({"test", Status::pass, 3, 0, 0, "logs/x/test.log", "ctest"});
  head.checks[1].seconds = 7;
  head.checks[1].message = "18 tests passed";
  EXPECT_TRUE(diff_results(set_of({good_cpu()}), set_of({head})).empty());
}

// Another opmatrix ran HEAD: no difference by itself, but the diff says so before anything,
// since a change may be opmatrix's own (a new check or rule), not the library's.
TEST(Diff, DifferentOpmatrixVersionsAreNamedNotCounted) {
  CellResult head = good_cpu();
  head.harness_version = "0.2.0";
  const Diff d = diff_results(set_of({good_cpu()}), set_of({head}));
  EXPECT_TRUE(d.empty());
  const std::string md = render_diff_markdown(d, "a", "b");
  EXPECT_NE(md.find("Run by different opmatrix versions (BASE: 0.1.0 (1); HEAD: 0.2.0 (1))"), std::string::npos) << md;
  EXPECT_NE(md.find("CHANGELOG.md"), std::string::npos);
  const auto json = nlohmann::json::parse(render_diff_json(d, "a", "b"));
  EXPECT_EQ(json.at("head_run_by").at("0.2.0"), 1);
  EXPECT_EQ(json.at("opmatrix_version"), kOpmatrixVersion);
  EXPECT_EQ(render_diff_markdown(diff_results(set_of({good_cpu()}), set_of({good_cpu()})), "a", "b")
                .find("different opmatrix versions"),
            std::string::npos);
}

TEST(Diff, PassToFailIsARegressionNamingOpCheckAndDiagnosis) {
  CellResult head = good_cpu();
  const Diff d = diff_results(set_of({good_cpu()}), set_of({with(head, "roi_align", "correctness", Status::fail)}));
  ASSERT_EQ(d.regressed.size(), 1u);
  const ResultChange& c = d.regressed[0];
  EXPECT_EQ(c.cell, "trixie-torch2.6-cpu");
  EXPECT_EQ(c.op, "roi_align");
  EXPECT_EQ(c.check, "correctness");
  EXPECT_EQ(c.base, Status::pass);
  EXPECT_EQ(c.head, Status::fail);
  ASSERT_TRUE(c.head_diagnosis);
  EXPECT_EQ(c.head_diagnosis->summary, "roi_align correctness differs from the reference");
  EXPECT_TRUE(has_regressions(d));
  ASSERT_EQ(d.verdicts.size(), 1u);
  EXPECT_TRUE(d.verdicts[0].regressed);

  const std::string md = render_diff_markdown(d, "main", "pr");
  EXPECT_NE(md.find("1 regressed, 0 fixed, 0 changed, cells +0 −0"), std::string::npos) << md;
  EXPECT_NE(md.find("| trixie-torch2.6-cpu | roi_align | correctness |  | pass → fail | **numerical_mismatch**: "
                    "roi_align correctness differs from the reference — fix: fix the roi_align kernel |"),
            std::string::npos)
      << md;
  const auto j = nlohmann::json::parse(render_diff_json(d, "main", "pr"));
  EXPECT_EQ(j["schema"], "opmatrix-diff");
  EXPECT_EQ(j["schema_version"], 1);
  EXPECT_EQ(j["has_regressions"], true);
  ASSERT_EQ(j["regressed"].size(), 1u);
  EXPECT_EQ(j["regressed"][0]["op"], "roi_align");
  EXPECT_EQ(j["regressed"][0]["base"], "pass");
  EXPECT_EQ(j["regressed"][0]["head"], "fail");
  EXPECT_EQ(j["regressed"][0]["head_diagnosis"]["kind"], "numerical_mismatch");
  for (const char* key : {"fixed", "changed", "cells_added", "cells_removed", "verdicts"})
    EXPECT_TRUE(j[key].is_array()) << key;
}

TEST(Diff, FailToPassIsFixedAndNotARegression) {
  CellResult base = good_cpu();
  with(base, "nms", "correctness", Status::fail);
  const Diff d = diff_results(set_of({base}), set_of({good_cpu()}));
  ASSERT_EQ(d.fixed.size(), 1u);
  EXPECT_EQ(d.fixed[0].op, "nms");
  EXPECT_EQ(d.fixed[0].head, Status::pass);
  EXPECT_TRUE(d.regressed.empty());
  ASSERT_EQ(d.verdicts.size(), 1u);
  EXPECT_FALSE(d.verdicts[0].regressed);
  EXPECT_FALSE(has_regressions(d));
  const std::string md = render_diff_markdown(d, "a", "b");
  EXPECT_NE(md.find("✔ Fixed (1)"), std::string::npos) << md;
  EXPECT_NE(md.find("Nothing regressed."), std::string::npos) << md;
  EXPECT_NE(md.find("✔ meets its expectations now"), std::string::npos) << md;
}

TEST(Diff, ExpectedFailureThatNowFailsIsARegression) {
  CellResult head = good_cpu();
  const Diff d = diff_results(set_of({good_cpu()}), set_of({with(head, "nms", "meta", Status::fail)}));
  ASSERT_EQ(d.regressed.size(), 1u);
  EXPECT_EQ(d.regressed[0].base, Status::xfail);
  EXPECT_NE(d.regressed[0].why.find("expected failure in BASE (known upstream bug)"), std::string::npos)
      << d.regressed[0].why;
  EXPECT_TRUE(has_regressions(d));
}

TEST(Diff, PassToSkipIsShownAsNoLongerCheckedButIsNotARegression) {
  CellResult head = good_cpu();
  with(head, "roi_align", "correctness", Status::skip);
  head.checks[2].message = "the cell does not promise CUDA";
  const Diff d = diff_results(set_of({good_cpu()}), set_of({head}));
  EXPECT_TRUE(d.regressed.empty());
  ASSERT_EQ(d.changed.size(), 1u);
  EXPECT_EQ(d.changed[0].kind, ResultChange::Kind::status);
  EXPECT_NE(d.changed[0].why.find("no longer checked"), std::string::npos) << d.changed[0].why;
  EXPECT_FALSE(has_regressions(d));
  const std::string md = render_diff_markdown(d, "a", "b");
  EXPECT_NE(md.find("Other status changes (1)"), std::string::npos) << md;
  EXPECT_NE(md.find("pass → skip | no longer checked: the cell does not promise CUDA"), std::string::npos) << md;
}

TEST(Diff, AResultHeadNoLongerHasIsNoLongerChecked) {
  CellResult head = good_cpu();
  head.checks.erase(head.checks.begin() + 2);
  const Diff d = diff_results(set_of({good_cpu()}), set_of({head}));
  ASSERT_EQ(d.changed.size(), 1u);
  EXPECT_EQ(d.changed[0].op, "roi_align");
  EXPECT_EQ(d.changed[0].base, Status::pass);
  EXPECT_FALSE(d.changed[0].head);
  EXPECT_NE(d.changed[0].why.find("no longer checked"), std::string::npos);
  EXPECT_FALSE(has_regressions(d));
}

TEST(Diff, StillFailingWithAnotherDiagnosisIsAChangedDiagnosis) {
  CellResult base = good_cpu(), head = good_cpu();
  with(base, "nms", "correctness", Status::fail);
  with(head, "nms", "correctness", Status::fail);
  head.checks[1].diagnosis->kind = "crash";
  head.checks[1].diagnosis->summary = "nms segfaults on empty boxes";
  head.checks[1].diagnosis->evidence = "another log line";
  const Diff d = diff_results(set_of({base}), set_of({head}));
  EXPECT_TRUE(d.regressed.empty());
  ASSERT_EQ(d.changed.size(), 1u);
  EXPECT_EQ(d.changed[0].kind, ResultChange::Kind::diagnosis);
  EXPECT_FALSE(has_regressions(d));  // it did not work in BASE either
  EXPECT_NE(render_diff_markdown(d, "a", "b").find("**crash**: nms segfaults on empty boxes"), std::string::npos);

  // Evidence and repro alone change with every run: not a difference.
  CellResult same = base;
  same.checks[1].diagnosis->evidence = "line 12 instead of line 11";
  EXPECT_TRUE(diff_results(set_of({base}), set_of({same})).empty());
}

TEST(Diff, ACellMissingFromHeadIsARegressionAndANewCellIsNot) {
  CellResult other = cell("sid-torch2.14-cpu", {result("nms", "correctness", Status::pass)});
  Diff d = diff_results(set_of({good_cpu(), other}), set_of({good_cpu()}));
  ASSERT_EQ(d.cells_removed.size(), 1u);
  EXPECT_EQ(d.cells_removed[0].cell, "sid-torch2.14-cpu");
  EXPECT_TRUE(d.regressed.empty());
  EXPECT_TRUE(has_regressions(d));
  const std::string md = render_diff_markdown(d, "a", "b");
  EXPECT_NE(md.find("Cells missing from HEAD (1)"), std::string::npos) << md;
  EXPECT_NE(md.find("**Regressed**: 1 cell missing from HEAD."), std::string::npos) << md;

  d = diff_results(set_of({good_cpu()}), set_of({good_cpu(), other}));
  ASSERT_EQ(d.cells_added.size(), 1u);
  EXPECT_FALSE(has_regressions(d));
  EXPECT_EQ(diff_summary(d), "0 regressed, 0 fixed, 0 changed, cells +1 −0");
}

TEST(Diff, ACellThatNoLongerMeetsItsExpectationsIsARegression) {
  CellResult head = good_cpu();
  head.meets_expectations = false;  // e.g. an expect entry that no longer matches
  const Diff d = diff_results(set_of({good_cpu()}), set_of({head}));
  EXPECT_TRUE(d.regressed.empty());
  ASSERT_EQ(d.verdicts.size(), 1u);
  EXPECT_TRUE(d.verdicts[0].regressed);
  EXPECT_TRUE(has_regressions(d));
}

TEST(Diff, ANewResultThatFailsIsARegressionAndOneThatPassesIsNot) {
  CellResult head = good_cpu();
  head.checks.push_back(result("nms", "compile", Status::pass));
  Diff d = diff_results(set_of({good_cpu()}), set_of({cell(cell_id(head), head.checks)}));
  ASSERT_EQ(d.changed.size(), 1u);
  EXPECT_EQ(d.changed[0].kind, ResultChange::Kind::added);
  EXPECT_FALSE(has_regressions(d));

  head.checks.push_back(result("roi_align", "compile", Status::xfail));
  d = diff_results(set_of({good_cpu()}), set_of({cell(cell_id(head), head.checks)}));
  const std::string md = render_diff_markdown(d, "a", "b");
  EXPECT_NE(md.find("New expected failures (1)"), std::string::npos) << md;
  EXPECT_NE(md.find("New results that pass or skip (1)"), std::string::npos) << md;
  EXPECT_FALSE(has_regressions(d));

  head.checks.push_back(result("nms", "export", Status::fail));
  d = diff_results(set_of({good_cpu()}), set_of({cell(cell_id(head), head.checks)}));
  ASSERT_EQ(d.regressed.size(), 1u);
  EXPECT_EQ(d.regressed[0].check, "export");
  EXPECT_FALSE(d.regressed[0].base);
}

TEST(Diff, SubtestsKeepOpcheckSubtestsApart) {
  CellResult base = cell("c", {result("nms", "opcheck", Status::pass, "test_schema"),
                               result("nms", "opcheck", Status::pass, "test_faketensor")});
  // HEAD lists them the other way round and one of them fails.
  CellResult head = cell("c", {result("nms", "opcheck", Status::fail, "test_faketensor"),
                               result("nms", "opcheck", Status::pass, "test_schema")});
  const Diff d = diff_results(set_of({base}), set_of({head}));
  ASSERT_EQ(d.regressed.size(), 1u);
  EXPECT_EQ(d.regressed[0].subtest, "test_faketensor");
  EXPECT_TRUE(d.changed.empty());
  EXPECT_NE(render_diff_markdown(d, "a", "b").find("| c | nms | opcheck | test_faketensor | pass → fail |"),
            std::string::npos);
}

TEST(Diff, ResultsSharingAKeyPairInOrderAndExtrasAreAddedOrRemoved) {
  // One `load` result per library: three in BASE, two in HEAD.
  CellResult base = cell("c", {result("", "load", Status::pass), result("", "load", Status::pass),
                               result("", "load", Status::pass)});
  CellResult head = cell("c", {result("", "load", Status::pass), result("", "load", Status::pass)});
  Diff d = diff_results(set_of({base}), set_of({head}));
  ASSERT_EQ(d.changed.size(), 1u);
  EXPECT_FALSE(d.changed[0].head);
  d = diff_results(set_of({head}), set_of({base}));
  ASSERT_EQ(d.changed.size(), 1u);
  EXPECT_EQ(d.changed[0].kind, ResultChange::Kind::added);
}

TEST(Diff, ResultsSharingAKeyPairByTheirSampleFirst) {
  CellResult base = cell("c", {result("nms", "compile", Status::pass, "", "nms(a)"),
                               result("nms", "compile", Status::pass, "", "nms(b)")});
  CellResult head = cell("c", {result("nms", "compile", Status::pass, "", "nms(a)"),
                               result("nms", "compile", Status::fail, "", "nms(new)"),
                               result("nms", "compile", Status::pass, "", "nms(b)")});
  const Diff d = diff_results(set_of({base}), set_of({head}));
  ASSERT_EQ(d.regressed.size(), 1u);
  EXPECT_EQ(d.regressed[0].sample, "nms(new)");
  EXPECT_TRUE(d.changed.empty());
}

// ---- the command, on files ----

namespace {

void write_set(const TempFolder& dir, const std::string& sub, const std::vector<CellResult>& cells) {
  std::filesystem::create_directories(dir.path / sub);
  for (const auto& c : cells) dir.write(sub + "/" + cell_id(c) + ".json", to_json(c).dump(2));
}

std::string p(const TempFolder& dir, const std::string& sub) { return (dir.path / sub).string(); }


}  // namespace

TEST(DiffCli, ARegressionExitsOneNamingCellOpCheckAndTheNewDiagnosis) {
  TempFolder dir;
  CellResult head = good_cpu();
  write_set(dir, "base", {good_cpu()});
  write_set(dir, "head", {with(head, "roi_align", "correctness", Status::crash)});
  CliRun r = cli({"diff", p(dir, "base"), p(dir, "head")});
  EXPECT_EQ(r.status, 1) << r.err;
  for (const char* what : {"trixie-torch2.6-cpu", "roi_align", "correctness", "pass → crash",
                           "roi_align correctness differs from the reference", "fix the roi_align kernel"})
    EXPECT_NE(r.out.find(what), std::string::npos) << what << "\n" << r.out;
  EXPECT_NE(r.err.find("1 regressed"), std::string::npos) << r.err;
}

TEST(DiffCli, IdenticalFoldersExitZeroSayingNoDifferences) {
  TempFolder dir;
  write_set(dir, "base", {good_cpu()});
  write_set(dir, "head", {good_cpu()});
  dir.write("head/_cross-load.json", "{}");  // not a cell, and not one this harness reads: still an error
  CliRun r = cli({"diff", p(dir, "base"), p(dir, "head")});
  EXPECT_EQ(r.status, 2) << r.err;
  std::filesystem::remove(dir.path / "head/_cross-load.json");
  r = cli({"diff", p(dir, "base"), p(dir, "head")});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("No differences"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("no differences"), std::string::npos) << r.err;
}

TEST(DiffCli, AGarbageFileExitsTwoNamingIt) {
  TempFolder dir;
  write_set(dir, "base", {good_cpu()});
  write_set(dir, "head", {good_cpu()});
  dir.write("head/sid-torch2.14-cpu.json", "{\"schema\": \"opmatrix-res");
  CliRun r = cli({"diff", p(dir, "base"), p(dir, "head")});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("sid-torch2.14-cpu.json"), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;

  nlohmann::json newer = to_json(good_cpu());
  newer["schema_version"] = 99;
  dir.write("head/sid-torch2.14-cpu.json", newer.dump());
  r = cli({"diff", p(dir, "base"), p(dir, "head")});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("sid-torch2.14-cpu.json: results schema version 99 is newer"), std::string::npos) << r.err;
}

TEST(DiffCli, AMissingOrEmptyFolderExitsTwoNamingIt) {
  TempFolder dir;
  write_set(dir, "base", {good_cpu()});
  CliRun r = cli({"diff", p(dir, "base"), p(dir, "nowhere")});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find(p(dir, "nowhere") + ": no such results folder or report file"), std::string::npos) << r.err;

  std::filesystem::create_directories(dir.path / "empty");
  r = cli({"diff", p(dir, "empty"), p(dir, "base")});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find(p(dir, "empty") + ": no results"), std::string::npos) << r.err;

  dir.write("other.json", "{\"schema\": \"something-else\"}");
  r = cli({"diff", p(dir, "base"), p(dir, "other.json")});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("other.json: neither a report"), std::string::npos) << r.err;
}

TEST(DiffCli, OutputFlagWritesTheFile) {
  TempFolder dir;
  CellResult head = good_cpu();
  write_set(dir, "base", {good_cpu()});
  write_set(dir, "head", {with(head, "nms", "correctness", Status::fail)});
  const std::string out = p(dir, "diff.json");
  CliRun r = cli({"diff", p(dir, "base"), p(dir, "head"), "--format", "json", "-o", out});
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_TRUE(r.out.empty());
  const auto j = nlohmann::json::parse(read_text_file(out));
  EXPECT_EQ(j["schema"], "opmatrix-diff");
  ASSERT_EQ(j["regressed"].size(), 1u);
  EXPECT_EQ(j["regressed"][0]["cell"], "trixie-torch2.6-cpu");
  EXPECT_EQ(j["regressed"][0]["op"], "nms");
}

TEST(DiffCli, AReportJsonFileIsASideToo) {
  TempFolder dir;
  write_set(dir, "base", {good_cpu()});
  const std::string report = p(dir, "main-report.json");
  ASSERT_EQ(cli({"report", "--results", p(dir, "base"), "--format", "json", "-o", report}).status, 0);
  CliRun r = cli({"diff", report, p(dir, "base")});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("No differences"), std::string::npos) << r.out;

  CellResult head = good_cpu();
  write_set(dir, "head", {with(head, "nms", "correctness", Status::timeout)});
  r = cli({"diff", report, p(dir, "head")});
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_NE(r.out.find("pass → timeout"), std::string::npos) << r.out;

  // A report made from a folder with a broken file carries that error: still bad input.
  ResultsSet broken = load_results(p(dir, "base"));
  broken.errors.push_back("results/x.json: not valid JSON");
  dir.write("broken-report.json", render_json(broken));
  r = cli({"diff", p(dir, "broken-report.json"), p(dir, "base")});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("broken-report.json: recorded when the report was made: results/x.json"), std::string::npos)
      << r.err;
}

TEST(DiffCli, HelpAndMissingArguments) {
  CliRun r = cli({"diff", "--help"});
  EXPECT_EQ(r.status, 0);
  EXPECT_NE(r.out.find("--format"), std::string::npos) << r.out;
  EXPECT_EQ(cli({"diff", "only-one"}).status, 2);
  EXPECT_EQ(cli({"diff", "a", "b", "--format", "html"}).status, 2);
}

}  // namespace opmatrix
