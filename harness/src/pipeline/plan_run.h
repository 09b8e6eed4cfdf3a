// The run's third stage: how many cells at once and how many compile jobs each, the clock and
// the progress lines, and what every cell's cache key shares (the sources, the commit).
#pragma once

#include "pipeline/run_state.h"

namespace opmatrix {

// Fills run.parallel_cells, run.settings, run.started, run.progress, run.sources, run.commit;
// from here on SIGINT and SIGTERM stop the run (engine/process.h) rather than the process.
void plan_run(RunState& run);

}  // namespace opmatrix
