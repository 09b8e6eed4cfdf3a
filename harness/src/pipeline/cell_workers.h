// The run's cells stage: run.parallel_cells workers take the jobs in order, each job's cell run
// (or its image only, with --images-only), until every job is taken or a stop is requested.
#pragma once

#include "pipeline/run_state.h"

namespace opmatrix {

// Fills run.outcomes, run.images_failed and run.cold_run; ends the look-ahead.
void run_cell_workers(RunState& run);

}  // namespace opmatrix
