// A script check's declaration file (checks/script/NAME.yaml): every one the binary carries
// reads and is registered; a broken one is refused with the place of each error.
#include "checks/script/script_declaration.h"

#include <gtest/gtest.h>

#include "script_check_declarations.h"

namespace opmatrix {
namespace {

const char* kValid = R"(order: 300
step:
  name: my-step
  script: my_check.py
  timeout_s: 90
  when: built
  does: "reads what the build made"
check:
  name: my_check
  per: library
  catches: "what it catches"
  user_error: "ImportError: what users see"
  weighs: limits
  columns: [project, behaviour]
  report: {label: mine, caption: "my caption"}
)";

std::vector<std::string> errors_of(const std::string& text) {
  Diagnostics diag("my_check.yaml");
  EXPECT_FALSE(parse_script_check(text, diag).has_value());
  std::vector<std::string> out;
  for (const auto& d : diag.sorted()) out.push_back(format_diagnostic(d));
  return out;
}

TEST(ScriptCheckDeclaration, EveryCarriedDeclarationReadsAndIsRegistered) {
  ASSERT_GT(kScriptCheckDeclarationsCount, 0u);
  for (const auto& text : kScriptCheckDeclarations) {
    Diagnostics diag(text.name);
    const auto d = parse_script_check(text.text, diag);
    ASSERT_TRUE(d.has_value()) << text.name;
    EXPECT_NE(find_check(d->declared.check.name), nullptr) << text.name;
    const StepSpec* step = find_step(d->declared.step.name);
    ASSERT_NE(step, nullptr) << text.name;
    EXPECT_TRUE(static_cast<bool>(step->run)) << text.name;
  }
  EXPECT_EQ(script_check_registry().size(), kScriptCheckDeclarationsCount);
}

TEST(ScriptCheckDeclaration, ReadsEveryField) {
  Diagnostics diag("my_check.yaml");
  const auto d = parse_script_check(kValid, diag);
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->order, 300);
  EXPECT_EQ(d->declared.step.name, "my-step");
  EXPECT_EQ(d->declared.step.timeout_s, 90);
  EXPECT_EQ(d->declared.step.when, StepWhen::built);
  EXPECT_EQ(d->declared.check.steps, std::vector<std::string>{"my-step"});
  EXPECT_EQ(d->declared.check.per, CheckPer::library);
  EXPECT_EQ(d->declared.check.weighs, Weighs::limits);
  EXPECT_TRUE(d->declared.check.project_column && d->declared.check.behaviour_column);
  EXPECT_FALSE(d->declared.check.arch_column);
  EXPECT_EQ(d->declared.check.report.caption, "my caption");
}

TEST(ScriptCheckDeclaration, MistakesAreNamedWithTheirPlace) {
  std::string text = kValid;
  text.replace(text.find("when: built"), 11, "when: later");
  text.replace(text.find("timeout_s: 90"), 13, "timeout_s: 9x");
  text.replace(text.find("  weighs: limits"), 16, "  weigh: limits");
  const auto errors = errors_of(text);
  ASSERT_EQ(errors.size(), 3u) << ::testing::PrintToString(errors);
  EXPECT_EQ(errors[0], "my_check.yaml:5:14: error: `timeout_s` must be a number, not '9x'");
  EXPECT_EQ(errors[1].rfind("my_check.yaml:6:9: error: `when`: 'later' is not one of", 0), 0u) << errors[1];
  EXPECT_EQ(errors[2], "my_check.yaml:13:3: error: unknown key `weigh`");
}

TEST(ScriptCheckDeclaration, AFlagIsTrueOrFalseAndAListHoldsText) {
  std::string text = kValid;
  text.replace(text.find("  columns: [project, behaviour]"), 31, "  torchvision_ops: yes\n  subtests: [{a: 1}]");
  const auto errors = errors_of(text);
  ASSERT_EQ(errors.size(), 2u) << ::testing::PrintToString(errors);
  EXPECT_EQ(errors[0], "my_check.yaml:14:20: error: `torchvision_ops` must be true or false, not 'yes'");
  EXPECT_EQ(errors[1].rfind("my_check.yaml:15:", 0), 0u) << errors[1];
  EXPECT_NE(errors[1].find("`subtests`: each item must be text"), std::string::npos) << errors[1];
}

TEST(ScriptCheckDeclaration, AMissingPartIsAnError) {
  const auto errors = errors_of("order: 1\nstep: {name: s, script: s.py, timeout_s: 1, when: built, does: d}\n");
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0], "my_check.yaml:1:1: error: missing `check`");
}

}  // namespace
}  // namespace opmatrix
