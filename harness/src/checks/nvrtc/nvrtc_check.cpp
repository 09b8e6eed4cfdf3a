// The `nvrtc` check: does the NVRTC torch loads accept each declared arch (torch's runtime
// compilation), asked by nvrtc_probe.py and judged per arch by nvrtc_judge.cpp.
#include "checks/cell_context.h"
#include "checks/nvrtc/nvrtc_judge.h"
#include "checks/registry.h"
#include "util/json_fields.h"

namespace opmatrix {

namespace {

bool nvrtc(CellContext& ctx, const StepSpec& spec) {
  std::vector<std::string> args = {"--cuda-root", json_text(ctx.result.versions, "cuda_root")};
  args.insert(args.end(), ctx.cell.cuda_archs.begin(), ctx.cell.cuda_archs.end());
  std::string repro;
  nlohmann::json j = ctx.script_json(spec.name, spec.script, args, "nvrtc", &repro);
  if (j.is_object())
    for (auto& c : nvrtc_checks(j, ctx.cell.cuda_archs, repro)) ctx.add(std::move(c));
  return true;
}

const bool kRegistered =
    (register_step(60, {"nvrtc", "nvrtc_probe.py", "", 600, StepWhen::cuda_cell,
                        "compiles a small kernel with the NVRTC torch loads, once per declared arch", false, nvrtc}),
     register_check(120, {"nvrtc", {"nvrtc"}, "nvrtc_checks", CheckPer::arch,
                          "the NVRTC torch loads accepts each declared arch (torch's runtime compilation)",
                          "nvrtc: error: invalid value for --gpu-architecture (-arch)", {}, false, true, {}, false,
                          false, Weighs::limits, {}, {"NVRTC", "does its NVRTC compile for it (runtime compilation)", {}}}),
     true);

}  // namespace

}  // namespace opmatrix
