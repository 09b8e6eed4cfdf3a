// The `smoke` check: a project's own smoke command (its `smoke:` argv), run from its folder
// with what its build made on PYTHONPATH.
#include "checks/cell_context.h"
#include "checks/registry.h"

namespace opmatrix {

namespace {

bool smoke(CellContext& ctx, const StepSpec& spec) {
  const Project& p = *ctx.cell.project;
  if (p.smoke.empty()) return true;
  StepCommand cmd = ctx.command(spec.name, ctx.in_project_dir(p.smoke), ctx.timeout_of(spec.name));
  cmd.env.emplace_back("OPMATRIX_PROJECT_BUILD", ctx.project_output());
  for (auto& kv : ctx.project_env()) cmd.env.push_back(kv);
  ProcessResult r = ctx.run_step(cmd, "smoke");
  if (r.ok()) ctx.add({"", "smoke", "", Status::pass, "the smoke command passed", "", r.seconds, {}, std::nullopt});
  return true;
}

const bool kRegistered =
    (register_step(110, {"smoke", "", "the project's smoke: argv, from its folder", 1800, StepWhen::project_smoke,
                         "runs the project's own smoke command", false, smoke}),
     register_check(150, {"smoke", {"smoke"}, "the step's exit status", CheckPer::cell,
                          "the project's own smoke command passes in the cell", "(the project's own failure)",
                          {"image_missing_prerequisite"}, true}),
     true);

}  // namespace

}  // namespace opmatrix
