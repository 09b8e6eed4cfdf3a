// The run's second stage: which cells it takes, and which of them can run here.
#pragma once

#include "pipeline/run_state.h"

namespace opmatrix {

// Explicit --cell ids, else --where, else the local default. Fills run.jobs (a cell that cannot
// run here is kept with the reason, reported as skipped, never silently dropped), run.runnable
// and, for a dry run, run.engine_missing. kExitUsage for a cell that cannot be checked from
// this repository; kExitFailed when cells are to run and the engine is missing.
StageExit select_cells(RunState& run);

}  // namespace opmatrix
