#include "pipeline/cell_cache.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "checks/registry.h"
#include "run/cache_key.h"
#include "util/atomic_write.h"
#include "util/hash.h"

namespace opmatrix {

CacheKey cache_key_of(const RunState& run, const RunJob& job) {
  return job.runs() ? cache_key_of(run, job, run.engine->planned_image(*job.cell)) : CacheKey{};
}

CacheKey cache_key_of(const RunState& run, const RunJob& job, const std::string& image) {
  if (!job.runs()) return {};
  const Cell& cell = *job.cell;
  // A path project's result also depends on its files; a PyPI one's on its pinned release (in the cell).
  SourceParts sources = run.sources;
  if (cell.project && !cell.project->path.empty())
    sources.emplace_back("the project's folder",
                         tree_hash(run.config.repo_root, {cell.project->path}, {run.results_dir, run.config.work_dir}));
  if (cell.project && !cell.project->samples.empty())  // it may live outside the project's folder
    sources.emplace_back("the project's samples",
                         Fnv64().add(read_text_file(run.config.repo_root + "/" + cell.project->samples)).hex());
  return cell_cache_key(cell, image, sources);
}

Standing standing_result(const RunState& run, const Cell& cell, const CacheKey& key) {
  if (run.opts.no_cache) return {std::nullopt, "--no-cache"};
  if (key.key.empty()) return {std::nullopt, ""};  // the host engine, or a skip: nothing is ever reused
  nlohmann::json j = nlohmann::json::parse(read_text_file(run.results_dir + "/" + cell.id + ".json"), nullptr, false);
  if (j.is_discarded()) return {std::nullopt, "no result yet"};
  try {
    CellResult old = cell_result_from_json(j);
    // Infrastructure failures never stand.
    if (old.status == Status::error || old.status == Status::timeout)
      return {std::nullopt, fmt::format("its last result was {} (the infrastructure's, never kept)", to_string(old.status))};
    // A full disk or a killed step says nothing about the cell: never reuse those (the
    // registry says which diagnosis kinds are the infrastructure's, per check).
    for (const auto& c : old.checks)
      if (c.diagnosis && is_infrastructure(c.check, c.diagnosis->kind))
        return {std::nullopt, fmt::format("its last result has the infrastructure's {} in {}", c.diagnosis->kind, c.check)};
    // --keep-measured: an atlas measured over many runs, sessions and opmatrix versions runs only
    // the pairs that have no result yet; each kept result still names the opmatrix that made it.
    if (old.cache_key != key.key && !run.opts.keep_measured) {
      const std::string changed = old.cache_key_parts.empty() ? "" : changed_parts(old.cache_key_parts, key.parts);
      return {std::nullopt, changed.empty() ? "its key changed (its last result does not say of what)"
                                            : "changed since its last result: " + changed};
    }
    old.cached = true;
    return {std::move(old), ""};
  } catch (const std::exception&) {
    return {std::nullopt, "its last result cannot be read"};
  }
}

}  // namespace opmatrix
