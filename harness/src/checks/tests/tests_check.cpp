// The `tests` check: a project's own test suite (its `tests:` command; pytest by default), run
// in every cell against the library as built and installed, never its source folder
// (run_tests.py), its JUnit XML read back test by test (tests_judge.cpp).
#include <algorithm>

#include "checks/cell_context.h"
#include "checks/registry.h"
#include "checks/requirements/missing_module.h"
#include "checks/tests/tests_judge.h"
#include "util/atomic_write.h"
#include "util/json_fields.h"

namespace opmatrix {

namespace {

// The test command for one test: a pytest command's own targets (its arguments that are no
// options) give way to the test's id; any other command is shown whole.
std::vector<std::string> one_test(const std::vector<std::string>& argv, const std::string& id) {
  auto at = std::find(argv.begin(), argv.end(), "pytest");
  if (at == argv.end()) return argv;
  std::vector<std::string> out(argv.begin(), at + 1);
  for (auto it = at + 1; it != argv.end(); ++it)
    if (!it->empty() && it->front() == '-') out.push_back(*it);
  out.push_back(id);
  return out;
}

// The ops the cell found (registration, load), for naming tests after them.
std::vector<std::string> cell_ops(const CellContext& ctx) {
  std::vector<std::string> ops;
  for (const auto& c : ctx.result.checks)
    if (!c.op.empty() && !is_torchvision_op(c.op) && std::find(ops.begin(), ops.end(), c.op) == ops.end())
      ops.push_back(c.op);
  return ops;
}

bool tests(CellContext& ctx, const StepSpec& spec) {
  const Project& p = *ctx.cell.project;
  const std::string junit = ctx.paths.build + "/tests-junit.xml";
  StepCommand cmd = ctx.against_installed(spec.name, p.tests, junit);
  cmd.capture_stdout = true;
  ProcessResult r = ctx.run_step(cmd, "tests");
  if (!r.ok()) return true;  // run_step recorded the step's failure as the check
  const nlohmann::json j = last_json_line(r.stdout_text);
  TestsContext tc;
  tc.ops = cell_ops(ctx);
  tc.repro = ctx.display(cmd);
  tc.repro_for = [&](const std::string& id) {
    StepCommand alone = ctx.against_installed(spec.name, one_test(p.tests, id));
    return ctx.display(alone);
  };
  tc.log = read_text_file(ctx.log_path(spec.name));
  tc.seconds = r.seconds;
  tc.resolved = ctx.notes.value("requirements", nlohmann::json::object()).value("resolved", nlohmann::json());
  if (const CheckResult* req = failed_requirements(ctx.result.checks)) tc.requirements_failed = *req;
  for (auto& c : tests_results(j, tc)) ctx.add(std::move(c));
  return true;
}

const bool kRegistered =
    (register_step(112, {"tests", "run_tests.py", "the project's tests: command (pytest), from a copy of its folder",
                         3600, StepWhen::project_tests,
                         "runs the project's own test suite against the installed library, reading its JUnit XML",
                         false, tests}),
     register_check(152, {"tests", {"tests"}, "tests_results", CheckPer::cell,
                          "the project's own test suite passes in the cell, test by test, against the installed library",
                          "FAILED test/test_extension.py::TestMyAddOut::test_correctness - AssertionError",
                          {"image_missing_prerequisite"}, true}),
     true);

}  // namespace

}  // namespace opmatrix
