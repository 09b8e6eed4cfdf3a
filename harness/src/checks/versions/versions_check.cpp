// The `versions` check: the probe step prints what the cell really has (torch, torchvision,
// CUDA, nvcc, compiler, C++ ABI), and versions_judge.cpp compares it with what the cell declares.
#include "checks/cell_context.h"
#include "checks/registry.h"
#include "checks/versions/versions_judge.h"

namespace opmatrix {

namespace {

bool probe(CellContext& ctx, const StepSpec& spec) {
  ProcessResult r = ctx.run_script_step(spec, "versions");
  if (!r.ok()) return false;
  nlohmann::json probe = nlohmann::json::parse(r.stdout_text, nullptr, false);
  if (!probe.is_object()) {
    ctx.add_error("versions", "the probe printed no JSON", r.seconds);
    return false;
  }
  ctx.result.versions = probe;
  ctx.add(check_versions(ctx.cell, probe));
  return true;
}

const bool kRegistered =
    (register_step(20, {"probe", "probe.py", "", 120, StepWhen::every_cell,
                        "prints the cell's torch, torchvision, CUDA, nvcc, compiler and C++ ABI as one JSON object",
                        true, probe, true}),
     register_check(10, {"versions", {"probe"}, "check_versions", CheckPer::cell,
                         "the cell's torch, torchvision and CUDA are the ones it declares, and torch has CUDA where "
                         "the cell promises it",
                         "AssertionError: Torch not compiled with CUDA enabled", {}}),
     true);

}  // namespace

}  // namespace opmatrix
