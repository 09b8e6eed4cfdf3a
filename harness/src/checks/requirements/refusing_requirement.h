// A cell rule of the requirements module: an import that fails inside a requirement refusing this
// torch (load's `requirement_refuses_torch`) names the release pip picked for it and the
// requirement that let it (vptq 0.0.5.post1's `transformers>=4.45` -> transformers 5.24.0, which
// disables torch before 2.6).
#pragma once

#include <vector>

#include <nlohmann/json.hpp>

#include "results/cell_result.h"

namespace opmatrix {

// `resolved`: requirements.py's report (null where the step did not run). Rewrites the failed
// import's message and diagnosis in place.
void name_refusing_release(const nlohmann::json& resolved, std::vector<CheckResult>& checks);

}  // namespace opmatrix
