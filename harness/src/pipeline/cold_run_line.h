// The closing line of what images cost the run in wall time (images/cold_run_figures.h).
#pragma once

#include <chrono>
#include <string>

#include "pipeline/run_state.h"

namespace opmatrix {

// From the engine's record of builds and image waits and the jobs' ends, measured from
// `origin` (the workers' start) to `done`; "" when no cell ran and nothing was built, and for
// the host engine (no images).
std::string cold_run_line(const RunState& run, std::chrono::steady_clock::time_point origin,
                          std::chrono::steady_clock::time_point done);

}  // namespace opmatrix
