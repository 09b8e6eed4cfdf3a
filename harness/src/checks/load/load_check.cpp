// The `load` check and, for another library, its `registration` and `meta`: dlopen(RTLD_NOW)
// of every built library in the cell's own torch (load_library.py), the project's module
// imported as users do, and with a namespace which ops registered which kernels
// (load_judge.cpp). Our own kernels' registration and Meta cases run in the test step.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "checks/cell_context.h"
#include "checks/load/load_judge.h"
#include "checks/promises/promises.h"
#include "checks/registry.h"
#include "checks/requirements/missing_module.h"

namespace opmatrix {

namespace {

constexpr const char* kOwnLibrary = "kernels/libopmatrix_ops.so";

std::vector<std::string> load_args(const CellContext& ctx) {
  std::vector<std::string> args;
  const Project* p = ctx.project();
  if (!p) return {ctx.paths.build + "/" + kOwnLibrary};
  if (!p->ns.empty()) {
    args = {"--namespace", p->ns};
    if (!p->ops.empty()) args.insert(args.end(), {"--ops", fmt::format("{}", fmt::join(p->ops, ","))});
  }
  if (!p->import_module.empty()) args.insert(args.end(), {"--import", p->import_module});
  args.insert(args.end(), {"--find", ctx.project_output()});
  return args;
}

bool load(CellContext& ctx, const StepSpec& spec) {
  std::string repro;
  nlohmann::json j = ctx.script_json(spec.name, spec.script, load_args(ctx), "load", &repro, ctx.project_env());
  if (!j.is_object()) return true;
  if (no_library_built(j) && j["import"].contains("compiled_at_import"))
    ctx.add(compiled_at_import_result(ctx.build.wheel, j["import"]));
  else if (no_library_built(j))
    ctx.add(no_library_result(ctx.build.wheel, ctx.cell.has_cuda(), repro));
  else
    for (auto& c : load_checks(j, repro)) ctx.add(std::move(c));
  // The later steps (cxx11-abi, fatbin) read the libraries of this runtime: a package's builds for
  // other runtimes or torches are not judged by this torch.
  if (j.contains("libraries"))
    for (const auto& lib : j["libraries"])
      if (!lib.contains("variant_of") && !lib.contains("for_torch")) ctx.build.libraries.push_back(lib.value("path", ""));
  if (j.contains("import")) {
    ctx.notes["import"] = j["import"];
    CheckResult imported = import_check(j["import"], repro, gpu_visible(ctx.result.versions, ""));
    imported.message += reached_note(j);
    ctx.add(explained_by_library_failure(std::move(imported), ctx.result.checks));
  }
  const Project* p = ctx.project();
  const std::string no_extension = no_extension_reason(ctx.build.wheel);
  if (p && !p->ns.empty() && !no_extension.empty() && no_library_built(j))
    for (auto& c : no_extension_checks(p->ops, p->ns, ctx.cell.has_cuda() ? "no compiled extension built (see load)"
                                                                          : no_extension)) ctx.add(std::move(c));
  else if (p && !p->ns.empty())
    for (auto& c : namespace_checks(j, p->ns, ctx.cell.has_cuda(), repro, &p->promises,
                                    gpu_visible(ctx.result.versions, "")))
      ctx.add(unregistered_for_want_of_load(std::move(c), ctx.result.checks));
  else if (p)
    ctx.add(not_a_dispatcher_library(j, repro));
  return true;
}

// Whether an op can be traced with fake tensors: a limit where it cannot (FakeTensor, compile and
// export users cannot use it; eager users can), a break where its fake kernel answers wrong
// (sizes, dtype or device other than the real kernel's: the cases' Meta tests, which compare them).
CheckSpec meta_check() {
  CheckSpec c{"meta", {"load", "test"}, "namespace_checks (projects) / the Meta cases; then what ran the fake "
                                         "kernel decides (load_rules.cpp)", CheckPer::op,
              "every op can run on fake tensors with the real kernel's sizes, dtype and device: a Meta or fake kernel "
              "where the op needs one, judged by what ran it (opcheck's fake-tensor sub-tests, fake-device) where "
              "that ran, else by its presence",
              "Unhandled FakeTensor Device Propagation for torchvision.deform_conv2d.default, found two different devices",
              {}, true};
  c.weighs = Weighs::limits;
  c.wrong_result_kinds = {"test_failure", "numerical_mismatch", "fake_size_mismatch"};
  return c;
}

const bool kRegistered =
    (register_step(90, atlas_step({"load", "load_library.py", "", 600, StepWhen::built,
                        "dlopen(RTLD_NOW) of every built library in the cell's own torch, then its namespace's kernels",
                        false, load})),
     register_check(40, {"load", {"load", "test"}, "load_checks", CheckPer::library,
                         "every built library loads with RTLD_NOW in the cell's own torch, else every symbol it lacks, "
                         "demangled (subtest library); a project's module imports (subtest import)",
                         "ImportError: ...so: undefined symbol: _Z27ms_deform_attn_cuda_forward...",
                         {"image_missing_prerequisite", kRequirementsNotHad, kImportNotInPackage, kPlaceholderPackage}, true, false, {"library", "import"}}),
     register_check(50, {"registration", {"load", "test"}, "namespace_checks (projects) / the cases' OpRegistration",
                         CheckPer::op,
                         "every op has a kernel for CPU, Meta and Autograd, and CUDA where the cell promises it "
                         "(registry rule below)",
                         "NotImplementedError: Could not run 'torchvision::nms' with arguments from the 'CUDA' backend",
                         {}, true}),
     register_check(80, meta_check()),
     true);

}  // namespace

}  // namespace opmatrix
