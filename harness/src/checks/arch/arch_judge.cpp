#include "checks/arch/arch_judge.h"

#include <algorithm>
#include <regex>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "checks/check_results.h"
#include "util/cuda_arch.h"

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

std::vector<CheckResult> arch_checks(const std::vector<std::string>& listed_by_nvcc,
                                     const std::vector<std::string>& declared, const std::string& nvcc_version,
                                     const std::string& repro) {
  const std::set<std::string> listed(listed_by_nvcc.begin(), listed_by_nvcc.end());
  std::vector<CheckResult> out;
  for (const auto& arch : declared) {
    const std::string sm = cmake_arch(arch);
    std::string plain = sm;
    if (!plain.empty() && (plain.back() == 'a' || plain.back() == 'f')) plain.pop_back();
    if (listed.count(sm) || listed.count(plain)) {
      out.push_back(make_check("", "arch", arch, Status::pass, fmt::format("nvcc {} targets sm_{}", nvcc_version, sm)));
      continue;
    }
    CheckResult c = make_check("", "arch", arch, Status::fail,
                               fmt::format("nvcc {} cannot target sm_{} (its --list-gpu-arch: {})", nvcc_version, sm,
                                           fmt::join(listed, " ")));
    c.diagnosis = make_diagnosis(
        "unsupported_arch", c.message + "; users of that GPU get \"nvrtc: error: invalid value for --gpu-architecture\"",
        "use a CUDA toolkit that supports it (sm_100/sm_120 need 12.8+; CUDA 13 dropped sm_70 and older), or expect "
        "it as xfail for this cell",
        repro);
    out.push_back(c);
  }
  return out;
}

}  // namespace opmatrix
