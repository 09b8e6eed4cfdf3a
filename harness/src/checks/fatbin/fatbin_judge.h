// The judge of the fatbin step: what fatbin.py lists of a library, as check results per arch.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "results/cell_result.h"

namespace opmatrix {

// One `fatbin` check per arch: does the library hold SASS that runs there (same major,
// minor <= the target's) or PTX the driver can JIT to it (compute <= the target).
std::vector<CheckResult> fatbin_checks(const nlohmann::json& report, const std::vector<std::string>& archs,
                                       const std::string& repro);

}  // namespace opmatrix
