#include "pipeline/cross_load_stage.h"

#include "crossload/cross_load.h"
#include "engine/process.h"

namespace opmatrix {

void cross_load_stage(RunState& run) {
  if (!run.opts.cross_load || run.runnable < 2 || stop_requested().load()) return;
  CrossLoadSettings xs;
  xs.results_dir = run.results_dir;
  run_cross_load(*run.matrix, *run.engine, xs, run.progress);
}

}  // namespace opmatrix
