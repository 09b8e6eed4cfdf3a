// A cell rule of the requirements module: where the project's import fails with "No module named
// 'X'", the one cause is named with its one fix — the requirement the cell could not get (the
// requirements check says why), or a module the library needs at import but does not require
// (its users' pip install does not bring it either: add it to install_requires). Where a
// requirement does provide it, the import's own diagnosis stands.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "results/cell_result.h"

namespace opmatrix {

// The top-level module of "No module named 'scipy.sparse'" ("scipy"); "" when the text has none
// or names torch's own (torch.export: a torch too old, the torch rules' to say).
std::string missing_module(const std::string& text);

// The load check's kind for an import that needs a requirement the run itself could not get
// (the requirements check failed for a reason of the run's: the network, an index it does not
// reach): an infrastructure kind of the load check, so the import is not checked, not red.
inline constexpr const char* kRequirementsNotHad = "requirements_not_had";

// Where a module the cell lacks should have come from, by what the requirements step got: the
// one rule for the library's import (below) and for its test files (checks/tests).
enum class ModuleOrigin {
  requirements_failed,  // the cell could not get the project's requirements: the requirements check says why
  required,             // a requirement the cell got provides it (util/python_distributions), yet it is missing
  not_required,         // nothing the project requires (its test requirements and test_requires included) provides it
};
ModuleOrigin module_origin(const std::string& module, const nlohmann::json& resolved, bool requirements_failed);

// What pip installed for `distribution` and the requirement it was installed for, from
// requirements.py's report: {release version ("" where the step did not install it), the
// requirement as written (the distribution's name where none names it)}.
std::pair<std::string, std::string> installed_for(const std::string& distribution, const nlohmann::json& resolved);

// The requirements check's failed result among a cell's results, or null.
const CheckResult* failed_requirements(const std::vector<CheckResult>& checks);

// `resolved`: requirements.py's report (null where the step did not run). Rewrites the failed
// import's diagnosis in place.
void name_missing_requirement(const std::string& project, const nlohmann::json& resolved,
                              std::vector<CheckResult>& checks);

}  // namespace opmatrix
