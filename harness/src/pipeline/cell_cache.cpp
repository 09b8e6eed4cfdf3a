#include "pipeline/cell_cache.h"

#include <nlohmann/json.hpp>

#include "checks/registry.h"
#include "run/cache_key.h"
#include "util/atomic_write.h"
#include "util/hash.h"

namespace opmatrix {

std::string cache_key_of(const RunState& run, const RunJob& job) {
  if (!job.runs()) return "";
  const Cell& cell = *job.cell;
  // A path project's result also depends on its files; a PyPI one's on its pinned release (in the cell).
  std::string cell_sources =
      cell.project && !cell.project->path.empty()
          ? run.sources + tree_hash(run.config.repo_root, {cell.project->path}, {run.results_dir, run.config.work_dir})
          : run.sources;
  if (cell.project && !cell.project->samples.empty())  // it may live outside the project's folder
    cell_sources += Fnv64().add(read_text_file(run.config.repo_root + "/" + cell.project->samples)).hex();
  return cell_cache_key(cell, run.engine->planned_image(cell), cell_sources);
}

std::optional<CellResult> standing_result(const RunState& run, const Cell& cell, const std::string& key) {
  if (run.opts.no_cache || key.empty()) return std::nullopt;
  nlohmann::json j = nlohmann::json::parse(read_text_file(run.results_dir + "/" + cell.id + ".json"), nullptr, false);
  if (j.is_discarded()) return std::nullopt;
  try {
    CellResult old = cell_result_from_json(j);
    // Infrastructure failures never stand.
    if (old.cache_key != key || old.status == Status::error || old.status == Status::timeout) return std::nullopt;
    // A full disk or a killed step says nothing about the cell: never reuse those (the
    // registry says which diagnosis kinds are the infrastructure's, per check).
    for (const auto& c : old.checks)
      if (c.diagnosis && is_infrastructure(c.check, c.diagnosis->kind)) return std::nullopt;
    old.cached = true;
    return old;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

}  // namespace opmatrix
