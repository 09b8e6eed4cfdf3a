#include "checks/promises/promises.h"

#include <algorithm>
#include <filesystem>
#include <regex>

#include <fmt/format.h>

#include "checks/cell_context.h"
#include "checks/registry.h"
#include "util/atomic_write.h"
#include "util/cuda_arch.h"

namespace fs = std::filesystem;

namespace opmatrix {

namespace {

// Whether a source folder holds any CUDA: .cu/.cuh files, a CUDAExtension, CUDA in CMake. Looks
// at a bounded number of entries (a library's tree, not a whole disk).
bool has_cuda_sources(const std::string& dir) {
  std::error_code ec;
  if (dir.empty() || !fs::is_directory(dir, ec)) return true;  // cannot tell: assume it may
  static const std::regex cuda_build(R"(CUDAExtension|LANGUAGES[^)\n]*CUDA|enable_language\s*\(\s*CUDA|cuda_add_library)");
  int seen = 0;
  for (auto it = fs::recursive_directory_iterator(dir, fs::directory_options::skip_permission_denied, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (++seen > 20000) return true;
    const fs::path& path = it->path();
    const std::string name = path.filename().string();
    if (it->is_directory(ec) && (name == ".git" || name == "site" || name == "build")) {
      it.disable_recursion_pending();
      continue;
    }
    const std::string ext = path.extension().string();
    if (ext == ".cu" || ext == ".cuh") return true;
    if ((name == "setup.py" || name == "CMakeLists.txt") &&
        std::regex_search(read_text_file(path.string()), cuda_build))
      return true;
  }
  return false;
}

bool cuda_only(const OpPromise& promise) {
  return !promise.backends.empty() &&
         std::find(promise.backends.begin(), promise.backends.end(), "cpu") == promise.backends.end();
}

bool op_missing_here(const std::vector<CheckResult>& checks, const std::string& op) {
  return std::any_of(checks.begin(), checks.end(), [&](const CheckResult& c) {
    return c.op == op && c.check == "registration" && is_bad(c.status);
  });
}

// Why `op`'s results cannot be judged in this cell, by its promise; "" when they can. `all`: every
// bad result of the op (its registration too), else only what runs it.
std::string not_checked_here(const OpPromise& promise, const std::string& op, const nlohmann::json& versions,
                             const std::vector<CheckResult>& checks, bool cpu_only_library, bool* all) {
  *all = true;
  if (promise.registered == "with_gpu" && !gpu_visible(versions, promise.arch))
    return fmt::format("not checked here (registered only where a GPU{} is visible: {})",
                       promise.arch.empty() ? "" : " of " + sm_name(promise.arch) + " or newer", promise.why);
  if (promise.registered == "on_some_cpus" && op_missing_here(checks, op))
    return fmt::format("not checked here (built only for some CPUs, not this build: {})", promise.why);
  if (cuda_only(promise) && cpu_only_library)
    return fmt::format("not checked here (a CUDA-only op, as promised: {}; this CPU-only variant has no kernel for it)",
                       promise.why);
  if (cuda_only(promise) && !gpu_visible(versions, "")) {
    *all = false;
    return fmt::format("not checked here (a CUDA-only op, as promised: {}; no GPU runs it here)", promise.why);
  }
  return "";
}

}  // namespace

std::optional<std::string> cpu_only_by_design(const Project& p, const std::string& source_dir) {
  if (p.promises.backends == std::vector<std::string>{"cpu"})
    return fmt::format("declared CPU-only: {}", p.promises.why);
  static const std::regex cpu_variant(R"((^|[-_])cpu($|[-_]))", std::regex::icase);
  if (p.from_pypi() && std::regex_search(p.short_name(), cpu_variant))
    return fmt::format("{} is the CPU variant by its name", p.short_name());
  if (p.wheel.empty() && p.promises.backends.empty() && !has_cuda_sources(source_dir))
    return "its sources hold no CUDA (no .cu file, no CUDAExtension, no CUDA language in CMake)";
  // torchrl's _torchrl.so, tensordict's _C.so: pybind11 helpers in host code, no dispatcher ops.
  if (!p.wheel.empty() && p.ns.empty() && p.promises.backends.empty())
    return "its wheel's extension registers no dispatcher ops (no namespace): a host-side helper, nothing of it "
           "is CUDA";
  return std::nullopt;
}

void apply_op_promises(const Project* p, const nlohmann::json& versions, std::vector<CheckResult>& checks,
                       bool cpu_only_library) {
  if (!p) return;
  for (const auto& [op, promise] : p->promises.ops) {
    bool all = true;
    const std::string why = not_checked_here(promise, op, versions, checks, cpu_only_library, &all);
    if (why.empty()) continue;
    for (auto& c : checks) {
      if (c.op != op || !is_bad(c.status)) continue;
      if (!all && (c.check == "registration" || c.check == "meta")) continue;
      c.status = Status::skip;
      c.message = why + "; measured: " + c.message.substr(0, 300);
      c.diagnosis.reset();
    }
  }
}

namespace {

const bool kRegistered = (register_cell_rule(5, {"what a library promises per op: not checked where it cannot hold",
                                                 [](CellContext& ctx) {
                                                   const Project* p = ctx.project();
                                                   if (!p || p->promises.ops.empty()) return;
                                                   // Whether the library is CPU-only matters only to a
                                                   // CUDA-only op: scan its sources only then.
                                                   const auto& ops = p->promises.ops;
                                                   const bool any_cuda_only = std::any_of(
                                                       ops.begin(), ops.end(),
                                                       [](const auto& op) { return cuda_only(op.second); });
                                                   apply_op_promises(
                                                       p, ctx.result.versions, ctx.result.checks,
                                                       any_cuda_only &&
                                                           cpu_only_by_design(*p, ctx.project_dir_on_host()).has_value());
                                                 }}),
                          true);

}  // namespace

bool gpu_visible(const nlohmann::json& versions, const std::string& arch) {
  if (!versions.contains("gpus") || !versions["gpus"].is_array()) return false;
  for (const auto& g : versions["gpus"])
    if (g.is_string() && (arch.empty() || arch_number(g.get<std::string>()) >= arch_number(arch))) return true;
  return false;
}

}  // namespace opmatrix
