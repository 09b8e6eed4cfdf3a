#include "checks/registry.h"

#include <algorithm>
#include <cstddef>
#include <fstream>
#include <initializer_list>
#include <regex>
#include <set>
#include <sstream>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "matrix/model.h"
#include "util/atomic_write.h"

namespace opmatrix {
namespace {

std::ptrdiff_t position(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) - names.begin();
}

// In `names`, each pair's first name stands before its second.
void expect_order(const std::vector<std::string>& names,
                  std::initializer_list<std::pair<const char*, const char*>> before_after) {
  for (const auto& [before, after] : before_after)
    EXPECT_LT(position(names, before), position(names, after)) << before << " before " << after;
}

TEST(CheckRegistry, NamesAreUniqueAndEveryCheckNamesRegistrySteps) {
  std::set<std::string> steps, checks;
  for (const auto& s : step_registry()) EXPECT_TRUE(steps.insert(s.name).second) << "step twice: " << s.name;
  for (const auto& c : check_registry()) {
    EXPECT_TRUE(checks.insert(c.name).second) << "check twice: " << c.name;
    EXPECT_FALSE(c.catches.empty()) << c.name;
    EXPECT_FALSE(c.user_error.empty()) << c.name;
    for (const auto& s : c.steps) EXPECT_TRUE(steps.count(s)) << c.name << " names unknown step " << s;
  }
}

// A check name that nothing produces cannot exist: every check but the skipped cell's comes
// from a step, and every step with a script has that script in scripts/cell/.
TEST(CheckRegistry, EveryCheckIsProducedAndEveryScriptExists) {
  for (const auto& c : check_registry())
    if (c.name != "cell") EXPECT_FALSE(c.steps.empty()) << c.name << " is produced by no step";
  for (const auto& s : step_registry()) {
    if (s.script.empty()) continue;
    std::ifstream f(std::string(OPMATRIX_SOURCE_DIR) + "/scripts/cell/" + s.script);
    EXPECT_TRUE(f.good()) << "step " << s.name << ": scripts/cell/" << s.script << " is missing";
  }
  EXPECT_EQ(find_check("crossload"), nullptr) << "cross-load writes _cross-load.json, never a check";
}

TEST(CheckRegistry, ScriptChecksAreTheirOwnStep) {
  for (const auto& sc : script_check_registry()) {
    ASSERT_FALSE(sc.check.steps.empty());
    EXPECT_EQ(sc.check.steps.front(), sc.step.name);
    EXPECT_FALSE(sc.step.script.empty()) << sc.step.name;
    EXPECT_NE(find_step(sc.step.name), nullptr);
    EXPECT_NE(find_check(sc.check.name), nullptr);
  }
}

TEST(CheckRegistry, ValidationAcceptsExactlyTheRegistryNames) {
  EXPECT_EQ(known_checks(), check_names());
  EXPECT_EQ(known_steps(), step_names());
}

TEST(CheckRegistry, InfrastructureKindsNeverCountAsTheOps) {
  EXPECT_TRUE(is_infrastructure("correctness", "killed"));  // SIGKILL: from outside, or out of memory
  EXPECT_FALSE(is_infrastructure("load", "crash"));         // its own SIGABRT: an import that aborts
  EXPECT_TRUE(is_infrastructure("build", "disk_full"));
  EXPECT_TRUE(is_infrastructure("build", "image_error"));
  EXPECT_FALSE(is_infrastructure("registration", "not_registered"));
  EXPECT_FALSE(is_infrastructure("build", "compile_error"));
  EXPECT_FALSE(is_infrastructure("load", "image_error"));
  // Something the image lacks (Python.h, setuptools) is the image's fault, never the library's.
  EXPECT_TRUE(is_infrastructure("build", "image_missing_prerequisite"));
  EXPECT_TRUE(is_infrastructure("smoke", "image_missing_prerequisite"));
  EXPECT_FALSE(is_infrastructure("build", "setup_needs_gpu"));
}

TEST(CheckRegistry, RunOrderKeepsTheBuildBeforeWhatNeedsIt) {
  const auto names = step_names();
  EXPECT_EQ(position(names, "image"), 0);
  // fatbin reads the libraries load found
  expect_order(names, {{"probe", "configure"}, {"archs", "configure"}, {"configure", "build"}, {"build", "load"},
                       {"load", "fatbin"}});
  EXPECT_EQ(names.back(), "torchvision-cpp");
}

// A check that is a column of a report table says how the table shows it: the tables name no
// check (report/behaviour_tables.cpp, extra_tables.cpp), so a new column needs only its module.
TEST(CheckRegistry, EveryReportColumnDeclaresHowItIsShown) {
  for (const auto& name : arch_columns()) {
    const CheckSpec* c = find_check(name);
    EXPECT_FALSE(c->report.label.empty() || c->report.caption.empty()) << name;
    EXPECT_EQ(c->per, CheckPer::arch) << name;
  }
  for (const auto& name : behaviour_columns()) {
    const CheckSpec* c = find_check(name);
    EXPECT_FALSE(c->report.label.empty() || c->report.caption.empty()) << name;
    EXPECT_EQ(c->per, CheckPer::op) << name;
    if (!c->subtests.empty()) EXPECT_EQ(c->report.subtest_labels.size(), c->subtests.size()) << name;
    if (c->torchvision_ops) EXPECT_FALSE(c->report.torchvision_caption.empty()) << name;
  }
  EXPECT_FALSE(arch_columns().empty());
  EXPECT_FALSE(behaviour_columns().empty());
}

// The registry's order is the modules' declared one, not the order the linker initialises them.
TEST(CheckRegistry, ChecksKeepTheirDeclaredOrder) {
  const auto names = check_names();
  EXPECT_EQ(position(names, "versions"), 0);
  expect_order(names, {{"build", "load"}, {"arch", "nvrtc"}, {"nvrtc", "fatbin"}, {"opcheck", "compile"}});
  for (const auto& sc : script_check_registry()) expect_order(names, {{"cell", sc.check.name.c_str()}});
}

// Every step is runnable: its module gave it a runner.
TEST(CheckRegistry, EveryStepHasItsRunner) {
  for (const auto& s : step_registry()) EXPECT_TRUE(static_cast<bool>(s.run)) << s.name;
}

TEST(CheckRegistry, JsonListsEveryCheckWithStepScriptAndUserError) {
  const nlohmann::json j = registry_json();
  ASSERT_EQ(j["checks"].size(), check_registry().size());
  for (const auto& c : j["checks"]) {
    EXPECT_TRUE(c.contains("step") && c.contains("script") && c.contains("user_error") && c.contains("timeout_s"))
        << c.dump();
  }
  const auto& load = *std::find_if(j["checks"].begin(), j["checks"].end(), [](const auto& c) { return c["name"] == "load"; });
  EXPECT_EQ(load["script"], "scripts/cell/load_library.py");
  EXPECT_EQ(load["step"], "load");
  EXPECT_FALSE(j["registration_rule"].get<std::string>().empty());
}

// The docs embed the generated tables; they must say what the registry says.
std::string block(const std::string& text, const std::string& name) {
  const std::string begin = "<!-- opmatrix:" + name + ":begin -->\n", end = "<!-- opmatrix:" + name + ":end -->";
  const auto b = text.find(begin), e = text.find(end);
  if (b == std::string::npos || e == std::string::npos || e < b) return "(no " + name + " block)";
  return text.substr(b + begin.size(), e - b - begin.size());
}

TEST(CheckRegistry, DocsTablesAreTheGeneratedOnes) {
  const std::string fix = "\nrun scripts/update-checks-docs.sh to regenerate it";
  const std::string checks = read_text_file(std::string(OPMATRIX_SOURCE_DIR) + "/docs/checks.md");
  EXPECT_EQ(block(checks, "checks"), checks_markdown()) << "docs/checks.md's checks table is stale" << fix;
  EXPECT_EQ(block(checks, "steps"), steps_markdown()) << "docs/checks.md's steps table is stale" << fix;
  const std::string contract = read_text_file(std::string(OPMATRIX_SOURCE_DIR) + "/docs/cell-contract.md");
  EXPECT_EQ(block(contract, "steps"), steps_markdown()) << "docs/cell-contract.md's steps table is stale" << fix;
}

}  // namespace
}  // namespace opmatrix
