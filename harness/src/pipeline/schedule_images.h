// The run starts: its results folder is made, and the look-ahead begins acquiring the images
// of the cells ahead of the workers.
#pragma once

#include "pipeline/run_state.h"

namespace opmatrix {

// Fills run.look_ahead where it helps (see schedule_images.cpp).
void schedule_images(RunState& run);

}  // namespace opmatrix
