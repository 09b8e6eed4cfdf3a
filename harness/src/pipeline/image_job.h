// One job of `opmatrix run --images-only`: the cell's image built (or found), nothing run.
#pragma once

#include "pipeline/run_state.h"

namespace opmatrix {

// Progress lines as the image build goes; sets run.images_failed when it fails. A job that
// does not run here is passed over.
void ensure_job_image(RunState& run, const RunJob& job);

}  // namespace opmatrix
