// One job of `opmatrix run`: the cell's last result kept where it stands, else the cell run
// (or reported as skipped) and its results file written.
#pragma once

#include <cstddef>
#include <string>

#include "pipeline/run_state.h"

namespace opmatrix {

// Job `i` of run.jobs, into run.outcomes[i]. `holder` names this run to another one that finds
// a cell's build folder taken (run/cell_lock.h).
void run_cell_job(RunState& run, std::size_t i, const std::string& holder);

}  // namespace opmatrix
