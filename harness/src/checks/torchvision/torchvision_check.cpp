// The `torchvision` check: how a Python user sees torchvision in the cell (the torchvision
// step: import + registrations) and how a C++ user does (the torchvision-cpp step, after our
// own kernels' build: the cases' registration binary dlopens torchvision's _C library);
// torchvision_judge.cpp judges both views together.
#include <filesystem>

#include "checks/cell_context.h"
#include "checks/registry.h"
#include "checks/torchvision/torchvision_judge.h"
#include "diagnose/diagnose.h"
#include "util/atomic_write.h"
#include "util/json_fields.h"

namespace fs = std::filesystem;

namespace opmatrix {

namespace {

// The Python view, kept in the cell's notes for the closing torchvision-cpp step.
bool python_view(CellContext& ctx, const StepSpec& spec) {
  ProcessResult r = ctx.run_script_step(spec, "torchvision");
  const nlohmann::json view = nlohmann::json::parse(r.stdout_text, nullptr, false);
  ctx.notes["torchvision"] = {{"python", view}, {"step_failed", !r.ok()}};
  if (r.ok() && !view.is_object()) ctx.add_error("torchvision", "torchvision: the script printed no JSON", r.seconds);
  return true;
}

// A registration binary that died says nothing about torchvision's kernels: the cell's
// results must show it (run_step records no check for this step).
void record_binary_death(CellContext& ctx, const StepCommand& cmd) {
  const StepResult& s = ctx.result.steps.back();
  if (s.status != Status::crash && s.status != Status::timeout) return;
  StepFailure f{"torchvision-cpp", read_text_file(cmd.log_path), s.exit_code, s.signal, s.status == Status::timeout,
                cmd.timeout_s, s.command};
  Diagnosis d = diagnose_step(f);
  ctx.add({"", "torchvision", "", s.status, "torchvision's C++ view: " + d.summary, "", s.seconds, {}, d});
}

// How a C++ user sees it: the generic registration binary dlopens torchvision's _C library.
std::string cpp_view(CellContext& ctx) {
  const std::string ext = json_text(ctx.result.versions, "torchvision_ext");
  if (!ctx.build.built || ctx.cell.project || ext.empty()) return "";
  const std::string out_json = "/torchvision-registration.json";
  StepCommand cmd = ctx.command("torchvision-cpp", {ctx.paths.build + "/registration",
                                                    "--gtest_output=json:" + ctx.paths.build + out_json},
                                ctx.timeout_of("torchvision-cpp"));
  cmd.env.emplace_back("OPMATRIX_REG_NAMESPACE", "torchvision");
  cmd.env.emplace_back("OPMATRIX_REG_LIBRARY", ext);
  cmd.env.emplace_back("OPMATRIX_REG_OPS", "nms,roi_align,deform_conv2d");
  const bool torch_cuda = ctx.result.versions.contains("torch_cuda") && ctx.result.versions["torch_cuda"].is_string();
  for (auto& [k, v] : cmd.env)
    if (k == "OPMATRIX_EXPECT_CUDA") v = torch_cuda ? "1" : "0";
  const std::string host_json = ctx.engine.host_build_dir(ctx.cell) + out_json;
  fs::remove(host_json);
  nlohmann::json j;
  // Missing torchvision kernels make the binary exit 1 after writing its results; that is
  // data for the torchvision check, not a failure of the step.
  ctx.run_step(cmd, "", [&](const ProcessResult& r) {
    j = nlohmann::json::parse(read_text_file(host_json), nullptr, false);
    return r.exit_code == 1 && j.is_object();
  });
  if (!j.is_object()) j = nlohmann::json::parse(read_text_file(host_json), nullptr, false);
  record_binary_death(ctx, cmd);
  if (!j.is_object()) return "the registration binary wrote no results";
  return summarize_registration_json(j);
}

bool verdict(CellContext& ctx, const StepSpec&) {
  const nlohmann::json& tv = ctx.notes.value("torchvision", nlohmann::json::object());
  // The torchvision step already recorded why there is no Python view.
  if (tv.value("step_failed", true) || !tv.contains("python") || !tv["python"].is_object()) return true;
  try {
    CheckResult c = check_torchvision(ctx.cell, tv["python"], cpp_view(ctx));
    // Another library's cell judges that library: a torchvision it neither imports nor requires
    // is the environment's (torch-edit-distance beside Debian's CPU-only torchvision and CUDA torch).
    if (const Project* p = ctx.project()) {
      const auto why = torchvision_unused(
          ctx.notes.value("import", nlohmann::json()),
          ctx.notes.value("requirements", nlohmann::json::object()).value("resolved", nlohmann::json::object()),
          ctx.build.built);
      if (why) c = not_the_projects(std::move(c), p->short_name(), *why);
    }
    ctx.add(std::move(c));
  } catch (const std::exception& e) {
    // Odd findings must not take the harness down with the cell's other results.
    ctx.add_error("torchvision", std::string("could not read torchvision's findings: ") + e.what());
  }
  return true;
}

const bool kRegistered =
    (register_step(40, {"torchvision", "torchvision_registrations.py", "", 120, StepWhen::every_cell,
                        "imports torchvision as a Python user does and lists its ops' kernels per dispatch key",
                        false, python_view}),
     register_step(910, {"torchvision-cpp", "", "cases' registration binary on torchvision's _C library", 300,
                         StepWhen::every_cell,
                         "dlopens torchvision's _C library from C++ (after an own-kernels build) and judges torchvision",
                         false, verdict}),
     register_check(140, {"torchvision", {"torchvision", "torchvision-cpp"}, "check_torchvision", CheckPer::cell,
                          "torchvision imports, pairs with the cell's torch and CUDA, and its ops have the kernels the "
                          "cell promises",
                          "RuntimeError: Couldn't load custom C++ ops ... incompatible PyTorch and torchvision versions",
                          {}}),
     true);

}  // namespace

}  // namespace opmatrix
