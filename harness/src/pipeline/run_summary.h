// The run's last stage: what it did, on run.out, and its exit status.
#pragma once

#include "pipeline/run_state.h"

namespace opmatrix {

// --images-only ends after the images: the cold-run line, and 130 after a stop, 1 when an
// image failed, else 0. nullopt for a run of cells.
StageExit finish_images_only(RunState& run);

// One table row per job, a line of totals and the cold-run line; 130 after a stop, 1 when a
// cell is not as expected (or could not run: its build folder was in use), else 0.
int summarize_run(RunState& run);

}  // namespace opmatrix
