#include "run/nvcc_archs.h"

#include <algorithm>
#include <regex>

namespace opmatrix {

std::vector<std::string> parse_nvcc_gpu_archs(const std::string& text) {
  static const std::regex re(R"(compute_(\d+[af]?))");
  std::vector<std::string> archs;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), re); it != std::sregex_iterator(); ++it) {
    std::string arch = (*it)[1];
    if (std::find(archs.begin(), archs.end(), arch) == archs.end()) archs.push_back(std::move(arch));
  }
  return archs;
}

}  // namespace opmatrix
