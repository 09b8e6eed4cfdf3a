// The judge of the nvrtc step: what nvrtc_probe.py reports, as check results per arch.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "results/cell_result.h"

namespace opmatrix {

// One `nvrtc` check per arch: does the cell's NVRTC accept --gpu-architecture=sm_XY.
std::vector<CheckResult> nvrtc_checks(const nlohmann::json& report, const std::vector<std::string>& archs,
                                      const std::string& repro);

}  // namespace opmatrix
