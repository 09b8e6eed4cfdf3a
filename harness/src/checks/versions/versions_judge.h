// The "version triangle": what the cell declares against what is really installed in it.
#pragma once

#include <nlohmann/json.hpp>

#include "matrix/model.h"
#include "results/cell_result.h"

namespace opmatrix {

// One `versions` check from the probe's findings; a mismatch is an error naming both versions.
CheckResult check_versions(const Cell& cell, const nlohmann::json& probe);

// The nvcc version the cell means to have: its NVCC build arg, else its CUDA.
std::string declared_nvcc(const Cell& cell);

}  // namespace opmatrix
