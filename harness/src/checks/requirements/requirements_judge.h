// Turns what scripts/cell/requirements.py reports (resolve, then install) into the
// `requirements` check of a project: which of its own requirements the cell got, or which one
// cannot be had for the cell's Python, with the fix. A pure function of JSON, unit-tested.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "checks/step_evidence.h"
#include "results/cell_result.h"

namespace opmatrix {

using RequirementsContext = StepEvidence;

// `resolved` is the resolve step's JSON, `installed` the install step's (null where it did not
// run: nothing to install, or resolving failed). Network and internal failures are the run's
// (error); a requirement the cell's Python cannot have is the library's (fail).
CheckResult requirements_check(const nlohmann::json& resolved, const nlohmann::json& installed,
                               const RequirementsContext& ctx);

}  // namespace opmatrix
