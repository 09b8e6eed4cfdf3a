#include "checks/nvrtc/nvrtc_judge.h"

#include <fmt/format.h>

#include "checks/check_results.h"
#include "util/cuda_arch.h"
#include "util/json_fields.h"

namespace opmatrix {

std::vector<CheckResult> nvrtc_checks(const nlohmann::json& report, const std::vector<std::string>& archs,
                                      const std::string& repro) {
  std::vector<CheckResult> out;
  const std::string version = json_text(report, "version");
  for (const auto& arch : archs) {
    const std::string sm = fmt::format("sm_{}", arch_number(arch));
    if (!json_text(report, "error").empty() || !report.contains("archs") || !report["archs"].contains(arch)) {
      out.push_back(make_check("", "nvrtc", arch, Status::skip,
                         json_text(report, "error").empty() ? "NVRTC was not asked about this arch" : json_text(report, "error")));
      continue;
    }
    const auto& a = report["archs"][arch];
    if (a.value("accepted", false)) {
      out.push_back(make_check("", "nvrtc", arch, Status::pass, fmt::format("NVRTC {} compiles for {}", version, sm)));
      continue;
    }
    CheckResult c = make_check("", "nvrtc", arch, Status::fail, fmt::format("NVRTC {} rejects {}: {}", version, sm, json_text(a, "log")));
    c.diagnosis = make_diagnosis("unsupported_arch",
                            fmt::format("this cell's NVRTC ({}) cannot compile for {}: a user on that GPU sees \"{}\"",
                                        version, sm, json_text(a, "log")),
                            "use a torch built with a CUDA whose NVRTC knows this GPU (sm_100/sm_120 need CUDA 12.8+)",
                            repro, json_text(report, "library"));
    out.push_back(c);
  }
  return out;
}

}  // namespace opmatrix
