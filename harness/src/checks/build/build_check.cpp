// The `build` check: configure and build the op library against the cell's torch (and CUDA):
// opmatrix's kernels and cases with cases/' CMake, another library (docs/projects.md) with its
// own CMake or setup.py, or a prebuilt wheel installed next to torch.
#include <cstdlib>
#include <filesystem>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "checks/cell_context.h"
#include "checks/load/load_judge.h"
#include "checks/build/cell_lacks.h"
#include "checks/build/project_archs.h"
#include "checks/registry.h"
#include "util/cuda_arch.h"
#include "util/json_fields.h"

namespace fs = std::filesystem;

namespace opmatrix {

namespace {

bool on_path(const std::string& program) {
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "";
  for (std::size_t at = 0; at <= dirs.size();) {
    const std::size_t end = std::min(dirs.find(':', at), dirs.size());
    std::error_code ec;
    if (end > at && fs::is_regular_file(fs::path(dirs.substr(at, end - at)) / program, ec)) return true;
    at = end + 1;
  }
  return false;
}

// CMake against the cell's torch, CUDA on exactly when the cell promises it; `archs_var`
// names the variable the project reads its CUDA archs from.
std::vector<std::string> configure_argv(const CellContext& ctx, const std::string& source, const std::string& archs_var) {
  std::vector<std::string> argv = {"cmake", "-S", source, "-B", ctx.paths.build, "-G", "Ninja",
                                   "-DCMAKE_BUILD_TYPE=Release",
                                   "-DCMAKE_PREFIX_PATH=" + json_text(ctx.result.versions, "torch_cmake_prefix"),
                                   std::string("-DOPMATRIX_WITH_CUDA=") + (ctx.cell.has_cuda() ? "ON" : "OFF")};
  // Every image has ccache; a host (a GPU machine as it is) may not: compiling then must
  // not fail with "ccache: not found".
  const bool ccache = ctx.engine.name() != "host" || on_path("ccache");
  if (ccache) argv.push_back("-DCMAKE_CXX_COMPILER_LAUNCHER=ccache");
  if (ctx.cell.has_cuda()) {
    if (ccache) argv.push_back("-DCMAKE_CUDA_COMPILER_LAUNCHER=ccache");
    argv.push_back(fmt::format("-D{}={}", archs_var, fmt::join(ctx.build.archs, ";")));
  }
  return argv;
}

// kernels/ + cases/, or a CMake project, against the cell's torch. A setup.py project has
// no configure step.
bool configure(CellContext& ctx, const StepSpec& spec) {
  const Project* p = ctx.project();
  if (p && p->kind != "cmake") return ctx.build.configured = true;
  StepCommand cmd = p ? ctx.command(spec.name, configure_argv(ctx, ctx.project_dir_in_cell(), "CMAKE_CUDA_ARCHITECTURES"),
                                    ctx.timeout_of(spec.name))
                      : ctx.command(spec.name, configure_argv(ctx, ctx.paths.src + "/cases", "OPMATRIX_CUDA_ARCHS"),
                                    ctx.timeout_of(spec.name));
  // torch's own CMake picks archs from this (else from a GPU, else a long default list).
  if (p && ctx.cell.has_cuda()) cmd.env.emplace_back("TORCH_CUDA_ARCH_LIST", torch_arch_list(ctx.build.archs));
  ProcessResult r = ctx.run_step(cmd, "build");
  ctx.build.configure_seconds = r.seconds;
  return ctx.build.configured = r.ok();
}

// A setup.py project or sdist is built as users get it: a wheel against the cell's torch,
// installed into project_output(); a prebuilt wheel is installed as it is.
void build_as_wheel(const CellContext& ctx, const Project& p, StepCommand& cmd) {
  const std::string& scripts = ctx.paths.scripts;
  cmd.argv = {scripts + "/python.sh", scripts + "/build_wheel.py",
              p.pypi.empty() ? ctx.paths.src + "/" + p.path : ctx.build.fetched, ctx.paths.build};
  if (!p.wheel.empty()) cmd.argv = {scripts + "/python.sh", scripts + "/install_wheel.py", ctx.build.fetched, ctx.paths.build};
  cmd.capture_stdout = true;
  for (auto& kv : ctx.wheel_build_env()) cmd.env.push_back(kv);
}

// What the build made, in words. CUDA cells: whether device code was built is the fatbin
// module's to say (its CPU-only judgement).
std::string built_message(const CellContext& ctx) {
  const Project* p = ctx.project();
  if (!p) return fmt::format("kernels and cases built{}", ctx.cell.has_cuda() ? " with CUDA kernels" : " (CPU only)");
  if (!p->wheel.empty())
    return fmt::format("prebuilt {} installed with pip install --no-deps next to torch {}",
                       fs::path(ctx.build.fetched).filename().string(), ctx.cell.torch);
  const nlohmann::json& w = ctx.build.wheel;
  const std::string wheel = w.is_object() ? " as " + fs::path(json_text(w, "wheel")).filename().string() : "";
  const std::string none = no_extension_reason(w);
  return fmt::format("{} project {} built{}{}", p->kind, p->label(), wheel,
                     !none.empty() ? ": " + none : ctx.cell.has_cuda() ? "" : " (CPU only)");
}

bool build(CellContext& ctx, const StepSpec& spec) {
  if (!ctx.build.configured) return false;
  const Project* p = ctx.project();
  const std::string jobs = std::to_string(ctx.settings.build_jobs);
  StepCommand cmd = ctx.command(spec.name, {"cmake", "--build", ctx.paths.build, "-j", jobs}, ctx.timeout_of(spec.name));
  if (p && p->kind != "cmake") build_as_wheel(ctx, *p, cmd);
  ProcessResult b = ctx.run_step(cmd, "build");
  if (!b.ok()) {
    excuse_what_the_cell_lacks(ctx);
    name_the_projects_own_archs(ctx);
    return false;
  }
  // The last line of a wheel build's stdout is its report.
  ctx.build.wheel = cmd.capture_stdout ? last_json_line(b.stdout_text) : nlohmann::json();
  CheckResult built;
  built.check = "build";
  built.status = Status::pass;
  built.message = built_message(ctx);
  built.seconds = ctx.build.configure_seconds + b.seconds;
  ctx.add(built);
  ctx.build.built = true;
  return true;
}

const bool kRegistered =
    (register_step(70, atlas_step({"configure", "", "cmake -S (cases/ or the project) -B /build", 600, StepWhen::every_cell,
                        "configures kernels/ + cases/ (or a CMake project) against the cell's LibTorch; setup.py "
                        "projects have no configure",
                        false, configure})),
     register_step(80, atlas_step({"build", "", "cmake --build /build; pip wheel (setup.py, an sdist); pip install --no-deps (a wheel)",
                        3600, StepWhen::every_cell,
                        "compiles and links the op library (and the cases), or installs a prebuilt wheel", false, build})),
     register_check(30, {"build", {"configure", "build", "image"}, "the step's exit status + diagnose_step", CheckPer::cell,
                         "the op library compiles and links against the cell's LibTorch (and CUDA), with its log and "
                         "the line that broke",
                         "error: command '/usr/bin/g++' failed with exit code 1",
                         {"image_error", "image_missing_prerequisite"}, true}),
     true);

}  // namespace

}  // namespace opmatrix
