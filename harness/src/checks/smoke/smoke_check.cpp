// The `smoke` check: a project's own smoke command (its `smoke:` argv), run against the library
// as built and installed: from a copy of its folder without the packages the build installed
// (scripts/cell/run_tests.py), with what its build made and its requirements on PYTHONPATH.
#include "checks/cell_context.h"
#include "checks/registry.h"

namespace opmatrix {

namespace {

bool smoke(CellContext& ctx, const StepSpec& spec) {
  const Project& p = *ctx.cell.project;
  if (p.smoke.empty()) return true;
  StepCommand cmd = ctx.against_installed(spec.name, p.smoke);
  ProcessResult r = ctx.run_step(cmd, "smoke");
  if (r.ok()) ctx.add({"", "smoke", "", Status::pass, "the smoke command passed", "", r.seconds, {}, std::nullopt});
  return true;
}

const bool kRegistered =
    (register_step(110, {"smoke", "run_tests.py", "the project's smoke: argv, from a copy of its folder", 1800,
                         StepWhen::project_smoke, "runs the project's own smoke command against the installed library",
                         false, smoke}),
     register_check(150, {"smoke", {"smoke"}, "the step's exit status", CheckPer::cell,
                          "the project's own smoke command passes in the cell", "(the project's own failure)",
                          {"image_missing_prerequisite"}, true}),
     true);

}  // namespace

}  // namespace opmatrix
