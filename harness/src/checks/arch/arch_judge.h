// The judge of the archs step: the GPU archs an nvcc can compile for, read from `nvcc
// --list-gpu-arch` (one parser for `opmatrix run` and `opmatrix doctor`), against the archs a
// cell declares.
#pragma once

#include <string>
#include <vector>

#include "results/cell_result.h"

namespace opmatrix {

// "compute_75\ncompute_90a\n…" -> {"75", "90a", …}: nvcc's order, each arch once.
std::vector<std::string> parse_nvcc_gpu_archs(const std::string& list_gpu_arch_output);

// One `arch` check per declared arch: pass where nvcc lists it (a/f variants by their plain
// arch too), else a fail whose diagnosis names the toolkit that would. `repro` reruns nvcc.
std::vector<CheckResult> arch_checks(const std::vector<std::string>& listed_by_nvcc,
                                     const std::vector<std::string>& declared, const std::string& nvcc_version,
                                     const std::string& repro);

}  // namespace opmatrix
