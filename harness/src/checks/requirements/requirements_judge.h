// Turns what scripts/cell/requirements.py reports (resolve, then install) into the
// `requirements` check of a project: which of its own requirements the cell got, or which one
// cannot be had for the cell's Python, with the fix. A pure function of JSON, unit-tested.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "results/cell_result.h"

namespace opmatrix {

struct RequirementsContext {
  std::string project;  // "pypi torch-sparse==0.6.18"
  std::string repro;    // the command that shows it again
  std::string log;      // the step's log (evidence)
  double seconds = 0;
};

// `resolved` is the resolve step's JSON, `installed` the install step's (null where it did not
// run: nothing to install, or resolving failed). Network and internal failures are the run's
// (error); a requirement the cell's Python cannot have is the library's (fail).
CheckResult requirements_check(const nlohmann::json& resolved, const nlohmann::json& installed,
                               const RequirementsContext& ctx);

}  // namespace opmatrix
