// The run's cross-load stage: after builds of several cells, each is loaded in every other's
// runtime (the ABI cross-load table, crossload/cross_load.h).
#pragma once

#include "pipeline/run_state.h"

namespace opmatrix {

// Writes results/_cross-load.json unless --no-cross-load, fewer than two cells ran here, or
// the run was stopped.
void cross_load_stage(RunState& run);

}  // namespace opmatrix
