// The `fatbin` check: which SASS / PTX each built library carries (fatbin.py: cuobjdump, or the
// .nv_fatbin section read directly), against every declared arch (fatbin_judge.cpp); then its
// tally decides whether a CUDA cell really built CUDA (cuda_build_judge.cpp). The one step after
// it (torchvision-cpp) adds only torchvision's results, so that judgement can be made here.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "checks/cell_context.h"
#include "checks/check_results.h"
#include "checks/fatbin/cuda_build_judge.h"
#include "checks/fatbin/fatbin_judge.h"
#include "checks/registry.h"
#include "util/cuda_arch.h"
#include "util/json_fields.h"

namespace opmatrix {

namespace {

// The archs a cell's libraries are judged on. A prebuilt wheel is used only where its torch runs:
// an arch torch's own build has no code for (torch 2.1.2+cu121: none for sm_100) is named once
// as such, not as a red of every library (bitsandbytes' _cuda121 build lacks sm_100 as torch
// does). A library the cell builds is judged on every declared arch (the arch check says which
// the toolkit cannot target).
std::vector<std::string> judged_archs(CellContext& ctx) {
  const Project* p = ctx.project();
  if (!p || p->wheel.empty() || !ctx.result.versions.contains("torch_cuda_archs") ||
      !ctx.result.versions["torch_cuda_archs"].is_array())
    return ctx.cell.cuda_archs;
  const auto torch_archs = ctx.result.versions["torch_cuda_archs"].get<std::vector<std::string>>();
  std::vector<std::string> beyond;
  auto archs = archs_torch_runs_on(ctx.cell.cuda_archs, torch_archs, beyond);
  for (const auto& arch : beyond)
    ctx.add(make_check("", "fatbin", arch, Status::skip,
                       fmt::format("torch {}'s own build holds no code for sm_{} (its archs: {}): no library used with "
                                   "it runs there, so none is judged there",
                                   json_text(ctx.result.versions, "torch"), arch_number(arch), fmt::join(torch_archs, " "))));
  return archs;
}

// What fatbin.py read of each library: one object for one library, {"libraries": [...]} for more.
std::vector<nlohmann::json> libraries_read(const nlohmann::json& j) {
  if (j.contains("libraries") && j["libraries"].is_array()) return j["libraries"].get<std::vector<nlohmann::json>>();
  return {j};
}

// Every library of the build in one container (a wheel of 8 libraries was 8 containers, ~0.3 s each).
bool fatbin(CellContext& ctx, const StepSpec& spec) {
  FatbinTally tally;
  const std::vector<std::string> archs = judged_archs(ctx);
  if (!ctx.build.libraries.empty()) {
    std::vector<std::string> args = {"--cuda-root", json_text(ctx.result.versions, "cuda_root")};
    args.insert(args.end(), ctx.build.libraries.begin(), ctx.build.libraries.end());
    std::string repro;
    const nlohmann::json read = ctx.script_json(spec.name, spec.script, args, "fatbin", &repro);
    for (const auto& j : read.is_object() ? libraries_read(read) : std::vector<nlohmann::json>{}) {
      if (!j.is_object()) continue;
      const bool ok = json_text(j, "error").empty();
      const bool device_code =
          !j.value("elf", nlohmann::json::array()).empty() || !j.value("ptx", nlohmann::json::array()).empty();
      if (ok) ++tally.read;
      if (ok && device_code) ++tally.with_device_code;
      for (auto& c : fatbin_checks(j, archs, repro)) {
        if (ok && !device_code) tally.host_only_results.push_back(ctx.result.checks.size());
        ctx.add(std::move(c));
      }
    }
  }
  reconcile_cuda_build(ctx, tally);
  return true;
}

const bool kRegistered =
    (register_step(900, atlas_step({"fatbin", "fatbin.py", "", 600, StepWhen::built_cuda,
                         "lists the SASS and PTX each built library carries (cuobjdump, or the .nv_fatbin section read "
                         "directly)",
                         false, fatbin})),
     register_check(130, {"fatbin", {"fatbin"}, "fatbin_checks", CheckPer::arch,
                          "each built library holds SASS or PTX that runs on each declared arch",
                          "CUDA error: no kernel image is available for execution on the device", {}, false, true, {},
                          false, false, Weighs::limits, {},
                          {"code", "does the built library hold SASS or PTX that runs there (cuobjdump)", {}}}),
     true);

}  // namespace

}  // namespace opmatrix
