#include "pipeline/image_by_image.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <memory>
#include <ostream>

#include <fmt/format.h>

#include "pipeline/disk_budget.h"
#include "engine/engine.h"
#include "pipeline/engine_config.h"
#include "pipeline/run_state.h"

namespace opmatrix {

std::vector<std::vector<std::string>> group_cells_by_image(const std::vector<std::pair<std::string, std::string>>& cells) {
  std::vector<std::vector<std::string>> groups;
  std::map<std::string, std::size_t> group_of_image;
  for (const auto& [id, image] : cells) {
    if (image.empty()) {
      groups.push_back({id});
      continue;
    }
    auto [it, first] = group_of_image.emplace(image, groups.size());
    if (first) groups.emplace_back();
    groups[it->second].push_back(id);
  }
  return groups;
}

int run_image_by_image(const RunOptions& opts, const Matrix& m, const std::vector<std::vector<std::string>>& groups,
                       const std::string& command, std::ostream& out, std::ostream& err) {
  RunOptions run = opts;
  run.image_group = true;  // each group is a plain run: it does not split itself again
  run.where.clear();
  std::unique_ptr<Engine> engine = make_engine(engine_config_for(run));
  DiskBudget budget(opts.disk_budget_gb * 1e9);
  const std::int64_t run_started =
      std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
  int status = kExitOk;
  for (const auto& group : groups) {
    if (group.empty()) continue;
    run.cells = group;
    const Cell& first = *m.find(group.front());
    const std::string planned = engine->planned_image(first);
    const bool there_before = !planned.empty() && !engine->image_id(planned).empty();
    const int s = run_command(run, out, err);
    if (s == kExitInterrupted || s == kExitUsage) return s;
    status = std::max(status, s);
    if (!there_before && !planned.empty() && !engine->image_id(planned).empty())
      budget.built({planned, engine->image_size(planned).value_or(0)});
    const auto evicted = budget.over_budget();
    for (const auto& old : evicted)
      out << fmt::format("{}: --disk-budget {} GB: removing {} ({:.1f} GB), built by this run, its cells done{}\n",
                         command, opts.disk_budget_gb, old.tag, old.bytes / 1e9,
                         engine->remove_image(old.tag) ? "" : " — could not remove it (in use?)");
    // The stages of the multi-stage builds this run made stay behind their tagged image, untagged.
    if (!evicted.empty())
      if (const int stages = engine->remove_unused_images_since(run_started); stages > 0)
        out << fmt::format("{}: --disk-budget {} GB: removed {} untagged build stage image{} this run made\n", command,
                           opts.disk_budget_gb, stages, stages == 1 ? "" : "s");
  }
  return status;
}

}  // namespace opmatrix
