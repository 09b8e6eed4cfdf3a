#include "checks/fatbin/fatbin_judge.h"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "checks/check_results.h"
#include "util/cuda_arch.h"
#include "util/json_fields.h"

namespace opmatrix {

std::string sass_for(const std::vector<std::string>& elf, int target) {
  // SASS runs on the same major with an equal or higher minor; an arch-specific (a/f)
  // cubin only on exactly that arch.
  std::string sass;
  for (const auto& e : elf) {
    const int n = arch_number(e);
    const bool fits = arch_specific(e) ? n == target : n / 10 == target / 10 && n <= target;
    if (fits && (sass.empty() || n > arch_number(sass))) sass = e;
  }
  return sass;
}

std::string ptx_for(const std::vector<std::string>& ptx, int target) {
  std::string jit;
  for (const auto& p : ptx) {
    const int n = arch_number(p);
    if (!arch_specific(p) && n <= target && (jit.empty() || n > arch_number(jit))) jit = p;
  }
  return jit;
}

std::vector<std::string> archs_torch_runs_on(const std::vector<std::string>& archs,
                                             const std::vector<std::string>& torch_archs,
                                             std::vector<std::string>& beyond_torch) {
  if (torch_archs.empty()) return archs;
  std::vector<std::string> elf, ptx;
  for (const auto& a : torch_archs) (a.rfind("compute_", 0) == 0 ? ptx : elf).push_back(a);
  std::vector<std::string> runs;
  for (const auto& arch : archs) {
    const int target = arch_number(arch);
    (sass_for(elf, target).empty() && ptx_for(ptx, target).empty() ? beyond_torch : runs).push_back(arch);
  }
  return runs;
}

namespace {
constexpr const char* kJitWords = " that the driver JIT-compiles to it (slow first launch)";
}  // namespace

bool fatbin_pass_by_jit(const CheckResult& c) {
  return c.check == "fatbin" && (c.status == Status::pass || c.status == Status::xpass) &&
         c.message.find(kJitWords) != std::string::npos;
}

std::vector<CheckResult> fatbin_checks(const nlohmann::json& report, const std::vector<std::string>& archs,
                                       const std::string& repro) {
  std::vector<CheckResult> out;
  const std::string lib = json_text(report, "library");
  const std::string name = lib.substr(lib.rfind('/') + 1);
  std::vector<std::string> elf, ptx;
  if (report.contains("elf")) elf = report["elf"].get<std::vector<std::string>>();
  if (report.contains("ptx")) ptx = report["ptx"].get<std::vector<std::string>>();
  // Who listed the code: cuobjdump (fatbin.py reads the section too, as a cross-check), or
  // fatbin.py's own reader where the cell has no cuobjdump.
  const std::string tool = json_text(report, "tool"), cross = json_text(report, "cross_check");
  std::string by;
  if (tool.find("cuobjdump") != std::string::npos && tool.find("no cuobjdump") == std::string::npos)
    by = cross.empty()        ? " (cuobjdump)"
         : cross == "agrees" ? " (cuobjdump; the section read directly agrees)"
                              : " (cuobjdump; cross-check: " + cross + ")";
  else if (!tool.empty())
    by = " (" + tool + ")";
  // A library of arch-specific cubins only (sm_90a, sm_100a) and no PTX is built for those GPUs
  // by design (torchao's _C_cutlass_90a: CUTLASS kernels that exist only for Hopper, beside its
  // generic _C): on other archs it is not meant to run, which no rebuild would change.
  const bool arch_specific_only =
      !elf.empty() && ptx.empty() && std::all_of(elf.begin(), elf.end(), [](const std::string& e) { return arch_specific(e); });
  for (const auto& arch : archs) {
    const int target = arch_number(arch);
    const std::string sm = fmt::format("sm_{}", target);
    if (!json_text(report, "error").empty()) {
      out.push_back(make_check("", "fatbin", arch, Status::skip, json_text(report, "error")));
      continue;
    }
    if (arch_specific_only && sass_for(elf, target).empty()) {
      out.push_back(make_check("", "fatbin", arch, Status::skip,
                               fmt::format("{} holds only arch-specific code ({}): built for those GPUs alone, by "
                                           "design not for {}{}", name, fmt::join(elf, " "), sm, by)));
      continue;
    }
    const std::string sass = sass_for(elf, target);
    const std::string jit = ptx_for(ptx, target);
    if (!sass.empty()) {
      out.push_back(make_check("", "fatbin", arch, Status::pass, fmt::format("{} holds SASS {} for {}{}", name, sass, sm, by)));
    } else if (!jit.empty()) {
      out.push_back(make_check("", "fatbin", arch, Status::pass,
                         fmt::format("{} holds no SASS for {}, but PTX {}{}{}", name, sm, jit, kJitWords, by)));
    } else {
      CheckResult c = make_check("", "fatbin", arch, Status::fail,
                           fmt::format("{} holds no code for {} (SASS: {}; PTX: {}){}", name, sm,
                                       elf.empty() ? "none" : fmt::format("{}", fmt::join(elf, " ")),
                                       ptx.empty() ? "none" : fmt::format("{}", fmt::join(ptx, " ")), by));
      c.diagnosis = make_diagnosis("no_kernel_image",
                              fmt::format("on {} the op fails with \"no kernel image is available for execution on the "
                                          "device\"", sm),
                              "add the arch to CUDA_ARCHITECTURES (or keep PTX of an older arch: 'XX-virtual'), with a "
                              "toolkit that supports it",
                              repro);
      out.push_back(c);
    }
  }
  return out;
}

}  // namespace opmatrix
