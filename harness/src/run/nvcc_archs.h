// The GPU archs an nvcc can compile for, read from `nvcc --list-gpu-arch`: one parser for
// `opmatrix run` (the `arch` checks) and `opmatrix doctor`.
#pragma once

#include <string>
#include <vector>

namespace opmatrix {

// "compute_75\ncompute_90a\n…" -> {"75", "90a", …}: nvcc's order, each arch once.
std::vector<std::string> parse_nvcc_gpu_archs(const std::string& list_gpu_arch_output);

}  // namespace opmatrix
