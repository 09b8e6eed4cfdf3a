// The judge of the fatbin step: what fatbin.py lists of a library, as check results per arch.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "results/cell_result.h"

namespace opmatrix {

// The newest SASS of `elf` that runs on arch number `target` (same major, minor <= the target's;
// an arch-specific a/f cubin only on exactly that arch), or "".
std::string sass_for(const std::vector<std::string>& elf, int target);
// The newest PTX of `ptx` the driver can JIT to `target` (compute <= the target), or "".
std::string ptx_for(const std::vector<std::string>& ptx, int target);

// One `fatbin` check per arch: does the library hold SASS that runs there (same major,
// minor <= the target's) or PTX the driver can JIT to it (compute <= the target).
std::vector<CheckResult> fatbin_checks(const nlohmann::json& report, const std::vector<std::string>& archs,
                                       const std::string& repro);

// Whether a fatbin pass rests only on PTX the driver JIT-compiles (the library holds no SASS for
// the arch): the build runs there, at the cost of a slow first launch.
bool fatbin_pass_by_jit(const CheckResult& c);

// A prebuilt library is used only where its torch runs: of `archs`, those on which torch's own
// build (`torch_archs`, torch.cuda.get_arch_list(): "sm_90", "compute_90") holds no code are
// moved to `beyond_torch` (all of them stay where torch's list is unknown).
std::vector<std::string> archs_torch_runs_on(const std::vector<std::string>& archs,
                                             const std::vector<std::string>& torch_archs,
                                             std::vector<std::string>& beyond_torch);

}  // namespace opmatrix
