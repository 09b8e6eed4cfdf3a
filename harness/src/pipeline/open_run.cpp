#include "pipeline/open_run.h"

#include <filesystem>
#include <ostream>

#include <fmt/format.h>

#include "atlas/atlas_file.h"
#include "matrix/diagnostic.h"
#include "matrix/load.h"
#include "pipeline/engine_config.h"
#include "util/suggest.h"

namespace fs = std::filesystem;

namespace opmatrix {

namespace {

StageExit usage_error(std::ostream& err, const std::string& what) {
  err << "opmatrix run: error: " << what << "\n";
  return kExitUsage;
}

// What can be judged before the matrix is read.
StageExit check_paths_and_sizes(const RunOptions& opts, std::ostream& err) {
  if (!opts.memory.empty() && !valid_memory_limit(opts.memory))
    return usage_error(err, "--memory must be a size such as 512m or 4g, not '" + opts.memory + "'");
  if (!opts.repo_root.empty() && !fs::is_directory(opts.repo_root))
    return usage_error(err, "--repo-root " + opts.repo_root + " is not a folder");
  return std::nullopt;
}

// With --repo-root, the matrix's containerfile and project paths are checked against that
// folder (the one mounted as /src), not against the matrix file's folder.
std::optional<Matrix> load_run_matrix(const RunOptions& opts, std::ostream& err) {
  if (!opts.atlas.empty()) {
    AtlasLoad loaded = load_atlas_file(opts.atlas);
    for (const auto& d : loaded.diagnostics) err << format_diagnostic(d) << '\n';
    if (!loaded.atlas) return std::nullopt;
    return std::move(loaded.atlas->pairs);
  }
  if (opts.repo_root.empty()) return load_matrix_or_report(opts.matrix, err);
  LoadResult loaded = load_matrix_file(opts.matrix, repo_root_for(opts));
  for (const auto& d : loaded.diagnostics) err << format_diagnostic(d) << '\n';
  return std::move(loaded.matrix);
}

// What needs the matrix: the --cell ids it must hold; then the counts.
StageExit check_cells_and_counts(const RunOptions& opts, const Matrix& m, std::ostream& err) {
  std::vector<std::string> ids;
  for (const auto& c : m.cells) ids.push_back(c.id);
  for (const auto& id : opts.cells)
    if (!m.find(id))
      return usage_error(err, fmt::format("no cell '{}' in {}{}", id, opts.matrix, did_you_mean(id, ids)));
  if (opts.jobs < 0) return usage_error(err, "--jobs must be at least 1");
  if (opts.prefetch < 0) return usage_error(err, "--prefetch must be 0 or more");
  return std::nullopt;
}

}  // namespace

StageExit open_run(RunState& run) {
  if (StageExit bad = check_paths_and_sizes(run.opts, run.err)) return bad;
  run.matrix = load_run_matrix(run.opts, run.err);
  if (!run.matrix) return kExitUsage;
  if (StageExit bad = check_cells_and_counts(run.opts, *run.matrix, run.err)) return bad;
  run.config = engine_config_for(run.opts);
  if (run.config.data_root.empty())
    return usage_error(run.err, "cannot find opmatrix's Containerfiles and in-cell scripts (share/opmatrix next to "
                                "the binary's bin/, or $OPMATRIX_DATA_DIR): reinstall with `cmake --install BUILD "
                                "--prefix PREFIX`");
  // Every image goes through one acquisition per tag (images/image_prefetch.h): cells of one
  // image never build it twice, nor at once, and the look-ahead's builds reach the workers.
  run.engine = std::make_unique<SharedBuildEngine>(make_engine(run.config));
  run.results_dir = absolute_path(run.opts.results);
  return std::nullopt;
}

}  // namespace opmatrix
