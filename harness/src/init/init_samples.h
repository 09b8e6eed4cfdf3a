// The samples file `opmatrix init` writes next to the matrix (the behaviour checks run its
// samples(device): docs/checks.md): one call per op whose schema init read, its arguments made
// from the schema's types. A starting point: tensor shapes are placeholders the user fixes.
#pragma once

#include <string>

#include "init/library_survey.h"

namespace opmatrix {

constexpr const char* kInitSamplesFile = "opmatrix_samples.py";

// The Python text; "" when the library has no dispatcher namespace (no op to call).
std::string render_init_samples(const LibrarySurvey& survey);

// One schema argument as a Python value ("torch.rand(4, 4, device=device)", "None", "0.5"),
// "" for an argument with a default (left out); `todo` set when the value is only a guess.
std::string sample_argument(const std::string& type, bool& todo);

}  // namespace opmatrix
