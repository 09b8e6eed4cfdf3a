// The `versions` check: the probe step prints what the cell really has (torch, torchvision,
// CUDA, nvcc, compiler, C++ ABI), and versions_judge.cpp compares it with what the cell declares.
#include "checks/cell_context.h"
#include "checks/registry.h"
#include "checks/versions/versions_judge.h"
#include "util/atomic_write.h"
#include "util/hash.h"

namespace opmatrix {

namespace {

// An atlas pair's runtime is its image: what the probe finds in one image (its torch, CUDA,
// Python) it finds for every pair of that runtime, so the pairs after the first read it from
// WORK/probes/<image id>.json instead of spending a container and a torch import on it again.
// Keyed by the probe script too: a probe that learns a new fact runs again once per image.
std::string kept_probe_path(const CellContext& ctx, const StepSpec& spec) {
  if (!ctx.cell.atlas_pair || ctx.result.image_id.empty()) return "";
  const std::string script = ctx.engine.config().data_root + "/scripts/cell/" + spec.script;
  return ctx.engine.config().work_dir + "/probes/" + ctx.result.image_id + "-" + Fnv64().add(read_text_file(script)).hex() +
         ".json";
}

nlohmann::json kept_probe(CellContext& ctx, const std::string& path) {
  if (path.empty()) return nullptr;
  nlohmann::json probe = nlohmann::json::parse(read_text_file(path), nullptr, false);
  if (!probe.is_object()) return nullptr;
  StepResult s;
  s.name = "probe";
  s.command = "the probe of image " + ctx.result.image_id + ", kept in " + path;
  ctx.result.steps.push_back(s);
  ctx.say("probe: the image's, kept from an earlier pair");
  return probe;
}

bool probe(CellContext& ctx, const StepSpec& spec) {
  const std::string kept = kept_probe_path(ctx, spec);
  nlohmann::json probe = kept_probe(ctx, kept);
  if (probe.is_null()) {
    ProcessResult r = ctx.run_script_step(spec, "versions");
    if (!r.ok()) return false;
    probe = nlohmann::json::parse(r.stdout_text, nullptr, false);
    if (!probe.is_object()) {
      ctx.add_error("versions", "the probe printed no JSON", r.seconds);
      return false;
    }
    if (!kept.empty()) write_file_atomically(kept, probe.dump());
  }
  ctx.result.versions = probe;
  ctx.add(check_versions(ctx.cell, probe));
  return true;
}

const bool kRegistered =
    (register_step(20, atlas_step({"probe", "probe.py", "", 120, StepWhen::every_cell,
                        "prints the cell's torch, torchvision, CUDA, nvcc, compiler and C++ ABI as one JSON object",
                        true, probe})),
     register_check(10, {"versions", {"probe"}, "check_versions", CheckPer::cell,
                         "the cell's torch, torchvision and CUDA are the ones it declares, and torch has CUDA where "
                         "the cell promises it",
                         "AssertionError: Torch not compiled with CUDA enabled", {}}),
     true);

}  // namespace

}  // namespace opmatrix
