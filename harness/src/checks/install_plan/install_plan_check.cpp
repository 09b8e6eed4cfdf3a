// The `install-plan` check of an atlas pair: what `pip install NAME==VERSION` does next to the
// cell's torch, by pip's own resolver (scripts/cell/install_plan.py, with network, its answer
// cached in the downloads folder), judged by install_plan_judge.cpp.
#include "checks/cell_context.h"
#include "checks/install_plan/install_plan_judge.h"
#include "checks/registry.h"
#include "checks/requirements/index_elsewhere.h"
#include "util/atomic_write.h"

namespace opmatrix {

namespace {

bool install_plan(CellContext& ctx, const StepSpec& spec);

const bool kRegistered =
    (register_check(22, {"install-plan", {"install-plan"}, "install_plan_check", CheckPer::cell,
                         "what `pip install NAME==VERSION` does next to the runtime's torch: installs it as it is, "
                         "replaces torch (from -> to), or finds no wheel for its Python and platform",
                         "Successfully uninstalled torch-2.5.1 ... Successfully installed torch-2.8.0",
                         {"network", "internal", kIndexElsewhere}, false, false, {}, false, false, Weighs::limits}),
     register_step(32, atlas_step({"install-plan", "install_plan.py", "", 300, StepWhen::atlas_pair,
                        "asks pip's resolver what `pip install NAME==VERSION` does next to the cell's torch (network)",
                        false, install_plan})),
     true);

bool install_plan(CellContext& ctx, const StepSpec& spec) {
  const Project& p = *ctx.cell.project;
  std::string repro;
  ProcessResult r = ctx.run_pypi_script(spec, {"--requirement", p.wheel, "--cache", ctx.paths.downloads}, repro);
  ctx.add(install_plan_check(nlohmann::json::parse(r.stdout_text, nullptr, false),
                             {{p.label(), repro, read_text_file(ctx.log_path(spec.name)), r.seconds}, r.timed_out,
                              r.exit_code}));
  return true;
}

}  // namespace

}  // namespace opmatrix
