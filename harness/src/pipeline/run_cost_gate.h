// The run's cost stage: what the cells whose last result does not stand will store and how
// long they take, said before anything starts; the run stops here when that does not fit in
// the free disk (unless --yes), and a dry run always ends here.
#pragma once

#include "pipeline/run_state.h"

namespace opmatrix {

// Fills run.to_run. A dry run prints one line per job on run.out and ends with 0 when the run
// fits (and the engine is here), else 1; a real run that does not fit ends with 1.
StageExit run_cost_gate(RunState& run);

}  // namespace opmatrix
