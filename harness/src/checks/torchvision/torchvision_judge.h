// The torchvision pairing check: does the cell's torchvision load against its torch, does
// it have the kernels the cell's torch promises (CUDA!), and was it built for the same CUDA.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "matrix/model.h"
#include "results/cell_result.h"

namespace opmatrix {

// `python_view`: scripts/cell/torchvision_registrations.py's output; `cpp_view`: a summary
// line of the generic registration binary run on torchvision's _C library ("" if not run).
CheckResult check_torchvision(const Cell& cell, const nlohmann::json& python_view, const std::string& cpp_view);

// "nms: Load ok, CpuKernel ok, CudaKernel missing; …" from the registration binary's gtest JSON.
std::string summarize_registration_json(const nlohmann::json& gtest_json);

}  // namespace opmatrix
