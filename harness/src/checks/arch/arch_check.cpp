// The `arch` check: the archs this cell's nvcc can compile for (nvcc --list-gpu-arch); each
// declared arch becomes one result (arch_judge.cpp), and the targetable ones are what the
// build compiles for.
#include "checks/arch/arch_judge.h"
#include "checks/cell_context.h"
#include "checks/registry.h"
#include "util/cuda_arch.h"
#include "util/json_fields.h"

namespace opmatrix {

namespace {

bool supported_archs(CellContext& ctx, const StepSpec& spec) {
  const std::string root = json_text(ctx.result.versions, "cuda_root");
  const std::string nvcc = root.empty() ? std::string("nvcc") : root + "/bin/nvcc";
  StepCommand cmd = ctx.command(spec.name, {nvcc, "--list-gpu-arch"}, ctx.timeout_of(spec.name));
  const std::string repro = ctx.display(cmd);
  cmd.capture_stdout = true;
  ProcessResult r = ctx.run_step(cmd, "arch");
  // nvcc that did not answer says nothing about any arch: run_step recorded why.
  if (!r.ok()) return true;
  const std::string nvcc_version = json_text(ctx.result.versions, "nvcc");
  for (auto& c : arch_checks(parse_nvcc_gpu_archs(r.stdout_text), ctx.cell.cuda_archs,
                             nvcc_version.empty() ? "?" : nvcc_version, repro)) {
    if (c.status == Status::pass) ctx.build.archs.push_back(cmake_arch(c.arch));
    ctx.add(std::move(c));
  }
  return true;
}

const bool kRegistered =
    (register_step(50, {"archs", "", "nvcc --list-gpu-arch", 120, StepWhen::cuda_cell,
                        "lists the archs the cell's nvcc can target", false, supported_archs}),
     register_check(110, {"arch", {"archs"}, "supported_archs (nvcc --list-gpu-arch)", CheckPer::arch,
                          "the cell's nvcc can compile for each declared arch",
                          "nvcc fatal : Unsupported gpu architecture 'compute_70'", {}, false, true, {}, false, false,
                          Weighs::limits, {}, {"nvcc", "can its nvcc target it (nvcc --list-gpu-arch)", {}}}),
     true);

}  // namespace

}  // namespace opmatrix
