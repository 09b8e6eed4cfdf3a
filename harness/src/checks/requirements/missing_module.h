// A cell rule of the requirements module: where the project's import fails with "No module named
// 'X'", the one cause is named with its one fix — the requirement the cell could not get (the
// requirements check says why), or a module the library needs at import but does not require
// (its users' pip install does not bring it either: add it to install_requires).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "results/cell_result.h"

namespace opmatrix {

// The top-level module of "No module named 'scipy.sparse'" ("scipy"); "" when the text has none
// or names torch's own (torch.export: a torch too old, the torch rules' to say).
std::string missing_module(const std::string& text);

// `resolved`: requirements.py's report (null where the step did not run). Rewrites the failed
// import's diagnosis in place.
void name_missing_requirement(const std::string& project, const nlohmann::json& resolved,
                              std::vector<CheckResult>& checks);

}  // namespace opmatrix
