// The run's first stage: the options checked, the matrix loaded, the engine made.
#pragma once

#include "pipeline/run_state.h"

namespace opmatrix {

// Fills run.matrix, run.config, run.engine and run.results_dir; kExitUsage (the reason on
// run.err) when an option or the matrix is wrong.
StageExit open_run(RunState& run);

}  // namespace opmatrix
