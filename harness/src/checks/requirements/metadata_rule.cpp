// One cause, one red: pip reads a setup.py project's metadata by running its setup.py, the code
// the build step runs too. Where both fail (a setup.py that raises without a GPU, say), the
// build's diagnosis is the one that says why; the requirements check then says it was not
// checked, pointing to it, instead of a second red for the same line of setup.py.
#include "checks/requirements/metadata_rule.h"

#include <algorithm>

#include <fmt/format.h>

#include "checks/cell_context.h"
#include "checks/registry.h"

namespace opmatrix {

void metadata_explained_by_build(std::vector<CheckResult>& checks) {
  // A build red, or a build not checked here for what the cell lacks (checks/build/cell_lacks.h).
  const auto build = std::find_if(checks.begin(), checks.end(), [](const CheckResult& c) {
    return c.check == "build" && (is_bad(c.status) || (c.status == Status::skip && c.diagnosis));
  });
  if (build == checks.end()) return;
  const char* why = is_bad(build->status) ? "fails" : "does not run here";
  for (auto& c : checks) {
    if (c.check != "requirements" || !is_bad(c.status) || !c.diagnosis || c.diagnosis->kind != "metadata") continue;
    const std::string cause = build->diagnosis && !build->diagnosis->summary.empty() ? build->diagnosis->summary
                                                                                      : build->message;
    c.status = Status::skip;
    c.message = fmt::format("not checked: pip could not read the project's metadata, for the reason the build "
                            "{} (see build: {})", why, cause.substr(0, cause.find('\n')));
    c.diagnosis.reset();
  }
}

namespace {

const bool kRegistered = (register_cell_rule(7, {"a project's metadata that fails with its build: the build's one red",
                                                 [](CellContext& ctx) { metadata_explained_by_build(ctx.result.checks); }}),
                          true);

}  // namespace

}  // namespace opmatrix
