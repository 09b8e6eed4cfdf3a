// The spellings of one CUDA arch: as matrix.yaml and torch's TORCH_CUDA_ARCH_LIST write it
// ("9.0", "9.0a"), as CMake's CUDA_ARCHITECTURES and nvcc do ("90", "90a"), as sm_/compute_
// names ("sm_90a"), and as a number to compare ("90"). One place converts between them.
#pragma once

#include <string>
#include <vector>

namespace opmatrix {

// "8.0" -> "80", "9.0a" -> "90a" (an already plain "90a" stays).
std::string cmake_arch(const std::string& arch);
// "80" -> "8.0", "100" -> "10.0", "90a" -> "9.0a" (a dotted one stays).
std::string dotted_arch(const std::string& arch);
// "9.0" -> "sm_90".
std::string sm_name(const std::string& arch);
// "9.0" -> 90, "10.0a" -> 100, "sm_90a"/"compute_90" -> 90; -1 when there is no number.
int arch_number(std::string arch);
// "9.0a", "sm_100f": code for that exact arch only (no PTX JIT to newer ones).
bool arch_specific(const std::string& arch);
// "8.0;9.0": torch's TORCH_CUDA_ARCH_LIST of CMake-spelled archs.
std::string torch_arch_list(const std::vector<std::string>& archs);

}  // namespace opmatrix
