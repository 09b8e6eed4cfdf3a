// The published atlas from pair results: the measured verdict apart from what the release
// declares, "not run" only where the release has no wheel for the runtime, every disagreement
// between declared and measured named, and atlas.json a report `opmatrix diff` reads back.
#include <gtest/gtest.h>

#include "atlas/atlas_report.h"
#include "init/temp_folder.h"
#include "testbed.h"
#include "util/atomic_write.h"

namespace opmatrix {
namespace {

using testbed::check_result;

Atlas two_by_two() {
  Atlas a;
  a.file = "atlas.yaml";
  a.runtimes = {"old-torch", "new-torch"};
  a.libraries = {{"libx", "libx", "libx", {"1.0"}, "", {}}, {"liby", "liby", "", {"2.0"}, "", {}}};
  return a;
}

CellResult pair_result(const std::string& library, const std::string& release, const std::string& runtime,
                       std::vector<CheckResult> checks) {
  CellResult r;
  r.cell = {{"id", atlas_pair_id(library, release, runtime)}, {"cuda", "none"}, {"atlas_pair", true},
            {"project", {{"wheel", library + "==" + release}}}};
  r.checks = std::move(checks);
  settle_status(r);
  return r;
}

ResultsSet results() {
  ResultsSet set;
  // libx 1.0 pins the old torch: it works there; in the new one its library lacks symbols.
  set.cells.push_back(pair_result("libx", "1.0", "old-torch",
                                  {check_result("wheel", Status::pass, "", "", "requires torch==2.5.1 (met by torch 2.5.1)"),
                                   check_result("install-plan", Status::pass, "", "", "pip install libx==1.0 installs it"),
                                   check_result("load", Status::pass, "", "", "_C.so loads")}));
  set.cells.push_back(pair_result("libx", "1.0", "new-torch",
                                  {check_result("wheel", Status::fail, "", "", "requires torch==2.5.1, but this cell's torch is 2.15.0"),
                                   check_result("install-plan", Status::fail, "", "", "pip would replace torch 2.15.0 -> 2.5.1"),
                                   check_result("load", Status::fail, "", "", "_C.so: undefined symbol: c10::foo()")}));
  // liby declares no torch; the old runtime's Python has no wheel of it; it loads in the new one
  // although ... nothing declared, nothing to disagree with.
  CheckResult no_wheel = check_result("fetch", Status::fail, "", "", "liby 2.0 has no wheel this cell can install: cp313");
  no_wheel.diagnosis = Diagnosis{"no_compatible_wheel", no_wheel.message, "", "", ""};
  set.cells.push_back(pair_result("liby", "2.0", "old-torch", {no_wheel}));
  return set;
}

}  // namespace

TEST(AtlasReport, MeasuredApartFromDeclaredAndEveryPairAccountedFor) {
  const Atlas a = two_by_two();
  const ResultsSet set = results();
  const AtlasView view = view_atlas(a, set);
  ASSERT_EQ(view.pairs.size(), 4u);

  const AtlasPair& home = *view.find("libx", "1.0", "old-torch");
  EXPECT_EQ(home.measured.verdict, Verdict::works);
  EXPECT_EQ(home.declared, Declared::accepts);
  EXPECT_EQ(disagreement(home), "");

  // The declared side (wheel, install-plan) is not the measured verdict's: one red, the load's.
  const AtlasPair& away = *view.find("libx", "1.0", "new-torch");
  EXPECT_EQ(away.measured.verdict, Verdict::broken);
  EXPECT_EQ(away.measured.broken, (std::vector<std::string>{"_C.so: undefined symbol: c10::foo()"}));
  EXPECT_TRUE(away.measured.as_declared) << "a pair declares no expectations";
  EXPECT_TRUE(away.result->meets_expectations) << "a red pair is a finding, not a run gone wrong";
  EXPECT_EQ(away.declared, Declared::refuses);
  EXPECT_EQ(away.pip_text, "pip would replace torch 2.15.0 -> 2.5.1");
  EXPECT_EQ(disagreement(away), "");  // it asks for another torch and does not work here: they agree

  const AtlasPair& none = *view.find("liby", "2.0", "old-torch");
  EXPECT_TRUE(none.no_wheel);
  EXPECT_EQ(none.measured.verdict, Verdict::not_run);
  EXPECT_EQ(none.measured.not_run, "liby 2.0 has no wheel this cell can install: cp313");

  const AtlasPair& missing = *view.find("liby", "2.0", "new-torch");
  EXPECT_EQ(missing.result, nullptr);
  EXPECT_EQ(missing.measured.not_run, "not measured yet");
}

// uccl 0.0.1.post4: its py3-none wheel holds a module for CPython 3.10 alone. That is measured
// (this Python cannot import it), the wheel's `tag` subtest: in the verdict, not the declared side,
// which stays what its metadata says of torch (nothing).
TEST(AtlasReport, AWheelsModuleThisPythonCannotImportIsMeasuredNotDeclared) {
  Atlas a = two_by_two();
  CheckResult tag = check_result("wheel", Status::fail, "", "",
                                 "p2p.cpython-310-x86_64-linux-gnu.so is a module only CPython 3.10 imports, and this "
                                 "Python 3.11 cannot import it: its wheel uccl.whl is tagged "
                                 "py3-none-manylinux_2_35_x86_64, for any Python 3");
  tag.subtest = "tag";
  tag.diagnosis = Diagnosis{"module_for_another_python", tag.message, "", "", ""};
  ResultsSet set;
  set.cells.push_back(pair_result("liby", "2.0", "new-torch",
                                  {tag, check_result("wheel", Status::pass, "", "", "uccl.whl: declares no torch requirement"),
                                   check_result("load", Status::pass, "", "", "libuccl.so loads")}));
  const AtlasView view = view_atlas(a, set);
  const AtlasPair& p = *view.find("liby", "2.0", "new-torch");
  EXPECT_EQ(p.measured.verdict, Verdict::broken);
  ASSERT_EQ(p.measured.broken.size(), 1u);
  EXPECT_NE(p.measured.broken[0].find("a module only CPython 3.10 imports"), std::string::npos) << p.measured.broken[0];
  EXPECT_EQ(p.declared, Declared::says_nothing);
}

TEST(AtlasReport, DisagreementsBetweenDeclaredAndMeasuredAreNamed) {
  AtlasPair p;
  p.declared = Declared::refuses;
  p.declared_text = "requires torch==2.5.1, but this cell's torch is 2.6.0";
  p.measured.verdict = Verdict::works;
  EXPECT_EQ(disagreement(p), "its metadata asks for another torch, yet it works here (requires torch==2.5.1, but "
                             "this cell's torch is 2.6.0)");
  p.declared = Declared::accepts;
  p.declared_text = "requires torch>=2.4 (met by torch 2.15.0)";
  p.measured.verdict = Verdict::broken;
  EXPECT_EQ(disagreement(p), "its metadata accepts this torch, yet it is broken here (requires torch>=2.4 (met by torch 2.15.0))");
  p.declared = Declared::says_nothing;
  EXPECT_EQ(disagreement(p), "its metadata names no torch, yet it is broken here");
  p.measured.verdict = Verdict::works_with_limits;
  EXPECT_EQ(disagreement(p), "");
}

TEST(AtlasReport, PagesLinkEachEntryToItsEvidenceAndTheJsonIsAReportDiffReads) {
  const Atlas a = two_by_two();
  const ResultsSet set = results();
  const auto files = render_atlas(view_atlas(a, set), set);
  // index.md, libx.md, liby.md, atlas.json, index.html, and each library's evidence
  ASSERT_EQ(files.size(), 7u);
  const std::string& html = files.at("index.html");
  EXPECT_NE(html.find("<details class=\"pair\" id=\"libx-1.0--new-torch\">"), std::string::npos);
  EXPECT_NE(html.find("<td class=\"fail\"><a href=\"#libx-1.0--new-torch\""), std::string::npos);
  const std::string& index = files.at("index.md");
  EXPECT_NE(index.find("| [libx](libx.md) 1.0 | [✔](libx.md#libx-1.0--old-torch) | [✘](libx.md#libx-1.0--new-torch) |"),
            std::string::npos) << index;
  // No wheel for the old runtime's Python (a finding) is told apart from not measured yet.
  EXPECT_NE(index.find("| [liby](liby.md) 2.0 | [∅](liby.md#liby-2.0--old-torch) | [○](liby.md#liby-2.0--new-torch) |"),
            std::string::npos) << index;
  EXPECT_NE(index.find("2 libraries, 4 pairs, 3 measured by opmatrix ? (3)"), std::string::npos) << index;
  // A pair the infrastructure kept from being measured (an image that could not be built) is not.
  ResultsSet with_error = set;
  with_error.cells.push_back(pair_result("liby", "2.0", "new-torch", {check_result("build", Status::error)}));
  with_error.cells[0].harness_version = "0.5.0";
  with_error.cells[1].harness_version = "0.6.0";
  EXPECT_NE(render_atlas(view_atlas(a, with_error), with_error)
                .at("index.md")
                .find("2 libraries, 4 pairs, 3 measured by opmatrix 0.5.0 (1), 0.6.0 (1) and ? (1)"),
            std::string::npos);
  const std::string& page = files.at("libx.md");
  EXPECT_NE(index.find("| | old-torch | new-torch |"), std::string::npos) << "a runtime with no pair cell keeps its id";
  EXPECT_NE(page.find("<a id=\"libx-1.0--new-torch\"></a>"), std::string::npos) << page;
  EXPECT_NE(page.find("- pip: pip would replace torch 2.15.0 -> 2.5.1"), std::string::npos) << page;
  EXPECT_NE(page.find("Every measured pair agrees"), std::string::npos) << page;

  EXPECT_NE(page.find("[evidence/libx.json](evidence/libx.json) (cell `libx-1.0--new-torch`"), std::string::npos)
      << page;

  // atlas.json names one evidence file per library; read back through it, every cell is there.
  TempFolder dir;
  for (const auto& [name, text] : files)
    if (name.rfind("evidence/", 0) == 0 || name == "atlas.json") dir.write(name, text);
  const ResultsSet back = load_results_from((dir.path / "atlas.json").string());
  EXPECT_TRUE(back.errors.empty());
  ASSERT_EQ(back.cells.size(), 3u);
  EXPECT_EQ(cell_id(back.cells[0]), "libx-1.0--new-torch");
  EXPECT_EQ(nlohmann::json::parse(files.at("atlas.json")).count("cells"), 0u);
  // An evidence file lost is said, never read as a library without pairs.
  std::filesystem::remove(dir.path / "evidence" / "liby.json");
  const ResultsSet short_one = load_results_from((dir.path / "atlas.json").string());
  ASSERT_EQ(short_one.errors.size(), 1u);
  EXPECT_NE(short_one.errors[0].find("evidence/liby.json is not there"), std::string::npos) << short_one.errors[0];
  EXPECT_EQ(short_one.cells.size(), 2u);
}

TEST(AtlasReport, AReportNamingCellsFilesOutsideItsFolderIsRefused) {
  TempFolder dir;
  dir.write("outside.json", R"({"schema": "opmatrix-report", "schema_version": 1, "cells": []})");
  dir.write("atlas/atlas.json", R"({"schema": "opmatrix-report", "schema_version": 2, "kind": "atlas",
                                    "cells_files": ["../outside.json", "/etc/passwd"]})");
  const ResultsSet set = load_results_from((dir.path / "atlas" / "atlas.json").string());
  ASSERT_EQ(set.errors.size(), 2u);
  EXPECT_NE(set.errors[0].find("\"../outside.json\" is not a file name inside its folder"), std::string::npos)
      << set.errors[0];
}

}  // namespace opmatrix

namespace opmatrix {

// 19 runtime ids across a table are unreadable: a column says the torch minor and where it comes
// from (the Debian suite, or PyPI's CUDA).
TEST(AtlasReport, ColumnsNameTheTorchMinorAndWhereItComesFrom) {
  Atlas a;
  a.runtimes = {"trixie-torch2.6-cpu", "pypi-torch2.0.1-cu11.7-nvcc11.8"};
  a.libraries = {{"libx", "libx", "libx", {"1.0"}, "", {}}};
  Cell debian, pypi;
  debian.id = atlas_pair_id("libx", "1.0", "trixie-torch2.6-cpu");
  debian.torch = "2.6.0";
  debian.cuda = "none";
  debian.image.args = {{"SUITE", "trixie"}};
  pypi.id = atlas_pair_id("libx", "1.0", "pypi-torch2.0.1-cu11.7-nvcc11.8");
  pypi.torch = "2.0.1";
  pypi.cuda = "11.7";
  pypi.image.builtin = "pypi";
  pypi.image.args = {{"SUITE", "bookworm"}};  // the OS under it, not where its torch comes from
  a.pairs.cells = {debian, pypi};
  const ResultsSet none;
  const auto files = render_atlas(view_atlas(a, none), none);
  EXPECT_NE(files.at("index.md").find("| | 2.6 trixie | 2.0 cu11.7 |"), std::string::npos) << files.at("index.md");
  EXPECT_NE(files.at("index.html").find("<th scope=\"col\" title=\"pypi-torch2.0.1-cu11.7-nvcc11.8\">2.0 cu11.7</th>"),
            std::string::npos);
}

}  // namespace opmatrix
