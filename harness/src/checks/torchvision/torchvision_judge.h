// The torchvision pairing check: does the cell's torchvision load against its torch, does
// it have the kernels the cell's torch promises (CUDA!), and was it built for the same CUDA.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "matrix/model.h"
#include "results/cell_result.h"

namespace opmatrix {

// `python_view`: scripts/cell/torchvision_registrations.py's output; `cpp_view`: a summary
// line of the generic registration binary run on torchvision's _C library ("" if not run).
CheckResult check_torchvision(const Cell& cell, const nlohmann::json& python_view, const std::string& cpp_view);

// Why a project is not answerable for the cell's torchvision, or nullopt where it uses it: its
// metadata requires torchvision (`requirements`: requirements.py's answer, whose "left_out" holds
// the torch-family requirements the cell itself provides), its import brought it in
// (`import_report`: load_library.py's "import", with "torchvision_loaded"), or its failed import
// names it. A project that never built, or whose import failed on something else, did not get as
// far as torchvision: its own red is the cell's. No import to tell by (none declared: its tests
// may import torchvision) counts as using it.
std::optional<std::string> torchvision_unused(const nlohmann::json& import_report, const nlohmann::json& requirements,
                                              bool built);

// The torchvision check of a project that does not use torchvision (`why`: torchvision_unused's):
// not the project's finding. A fault stays in the message, word for word, as the environment's;
// the status is a skip.
CheckResult not_the_projects(CheckResult c, const std::string& project, const std::string& why);

// "nms: Load ok, CpuKernel ok, CudaKernel missing; …" from the registration binary's gtest JSON.
std::string summarize_registration_json(const nlohmann::json& gtest_json);

}  // namespace opmatrix
