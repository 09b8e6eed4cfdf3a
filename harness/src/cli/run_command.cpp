// `opmatrix run`: a pipeline of named stages (harness/src/pipeline/), each reading the state
// the ones before it left in one RunState and ending the run early with an exit status where
// it has to. Engine settings and --memory's syntax: pipeline/engine_config.cpp.
#include <ostream>

#include "cli/commands.h"
#include "pipeline/cell_workers.h"
#include "pipeline/cross_load_stage.h"
#include "pipeline/image_by_image.h"
#include "pipeline/open_run.h"
#include "pipeline/plan_run.h"
#include "pipeline/run_cost_gate.h"
#include "pipeline/run_state.h"
#include "pipeline/run_summary.h"
#include "pipeline/schedule_images.h"
#include "pipeline/select_cells.h"

namespace opmatrix {

namespace {

// --disk-budget: the selection's cells grouped by the image each runs in, one group at a time
// (pipeline/image_by_image.h). The cells that cannot run here are said once, with their reasons.
int run_within_budget(const RunOptions& opts, std::ostream& out, std::ostream& err) {
  RunState run(opts, out, err);
  if (StageExit status = open_run(run)) return *status;
  if (StageExit status = select_cells(run)) return *status;
  std::vector<std::pair<std::string, std::string>> cells;
  for (const auto& j : run.jobs) {
    if (j.runs())
      cells.emplace_back(j.cell->id, run.engine->planned_image(*j.cell));
    else
      err << "opmatrix run: skipped " << j.cell->id << ": " << j.skip_reason << "\n";
  }
  RunOptions each = opts;
  each.cross_load = false;  // the images of other groups are gone by then
  return run_image_by_image(each, *run.matrix, group_cells_by_image(cells), "opmatrix run", out, err);
}

}  // namespace

int run_command(const RunOptions& opts, std::ostream& out, std::ostream& err) {
  if (opts.disk_budget_gb > 0 && !opts.dry_run && !opts.images_only) return run_within_budget(opts, out, err);
  return run_selected_cells(opts, out, err);
}

int run_selected_cells(const RunOptions& opts, std::ostream& out, std::ostream& err) {
  RunState run(opts, out, err);
  if (StageExit status = open_run(run)) return *status;
  if (StageExit status = select_cells(run)) return *status;
  plan_run(run);
  if (StageExit status = run_cost_gate(run)) return *status;  // a dry run always ends here
  schedule_images(run);
  run_cell_workers(run);
  if (StageExit status = finish_images_only(run)) return *status;
  cross_load_stage(run);
  return summarize_run(run);
}

}  // namespace opmatrix
