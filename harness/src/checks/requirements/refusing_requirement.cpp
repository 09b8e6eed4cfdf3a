// A cell rule of the requirements module: where the import fails inside a requirement that
// refuses this torch (load's `requirement_refuses_torch`), the release pip picked and the
// requirement that let it are named, as pip's report of the requirements step says them. vptq
// 0.0.5.post1 requires `transformers>=4.45`; beside torch 2.5.1 pip picks transformers 5.24.0,
// which declares no torch and disables any torch before 2.6 at import.
#include "checks/requirements/refusing_requirement.h"

#include <regex>

#include <fmt/format.h>

#include "checks/cell_context.h"
#include "checks/registry.h"
#include "checks/requirements/missing_module.h"
#include "util/python_distributions.h"

namespace opmatrix {

void name_refusing_release(const nlohmann::json& resolved, std::vector<CheckResult>& checks) {
  if (!resolved.is_object()) return;
  for (auto& c : checks) {
    if (c.check != "load" || c.subtest != "import" || !c.diagnosis || c.diagnosis->kind != "requirement_refuses_torch")
      continue;
    static const std::regex inside(R"(fails inside ([A-Za-z_]\w*), which)");
    std::smatch m;
    if (!std::regex_search(c.message, m, inside)) return;
    const std::string module = m[1];
    const std::string dist = distribution_of(module).distribution;
    const auto [version, requirement] = installed_for(dist, resolved);
    if (version.empty()) return;
    const std::string release = fmt::format("{} {}", dist, version);
    c.message = std::regex_replace(c.message, inside, fmt::format("fails inside {}, which", release),
                                   std::regex_constants::format_first_only);
    c.message += fmt::format(" (pip picks {} for the requirement {}, which does not rule it out)", release,
                             requirement);
    c.diagnosis->summary = c.message;
    c.diagnosis->fix = fmt::format("bound the requirement to the releases of {} that support this torch ({} does "
                                   "not), or install one of them beside it",
                                   dist, version);
    return;
  }
}

namespace {

const bool kRegistered = (register_cell_rule(8.5, {"an import a requirement refuses: its release and requirement",
                                                   [](CellContext& ctx) {
                                                     if (!ctx.cell.project) return;
                                                     const auto& note =
                                                         ctx.notes.value("requirements", nlohmann::json::object());
                                                     name_refusing_release(note.value("resolved", nlohmann::json()),
                                                                           ctx.result.checks);
                                                   }}),
                          true);

}  // namespace

}  // namespace opmatrix
