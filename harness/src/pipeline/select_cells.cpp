#include "pipeline/select_cells.h"

#include <algorithm>
#include <filesystem>
#include <ostream>

#include <fmt/format.h>

namespace fs = std::filesystem;

namespace opmatrix {

namespace {

// Why a selected cell does not run with this engine on this machine, or "".
std::string not_runnable_reason(const Cell& cell, const RunOptions& opts, bool explicitly_chosen) {
  if (cell.runner == Runner::host && opts.engine != "host")
    return "runs in a GPU machine's own environment: run `opmatrix run --engine host --cell " + cell.id + "` there";
  if (explicitly_chosen) return "";
  if (!cell.runs("local")) {
    if (cell.runs("github")) return "GitHub-only cell (" + (cell.notes.empty() ? "its image needs an index this machine cannot reach" : cell.notes) + ")";
    return "needs a GPU machine";
  }
  if (!cell.in_default) return "not in the default local run (select it with --cell " + cell.id + ")";
  return "";
}

// With neither --cell nor --where, the local default: the GitHub set's other cells are GitHub's (one
// line says how many), not skips of this run.
void choose_jobs(RunState& run) {
  const RunOptions& opts = run.opts;
  int outside_default = 0;
  for (const auto& c : run.matrix->cells) {
    const bool chosen = std::find(opts.cells.begin(), opts.cells.end(), c.id) != opts.cells.end();
    if (!opts.cells.empty() && !chosen) continue;
    if (opts.cells.empty() && !opts.where.empty() && !cell_selected(c, opts.where)) continue;
    if (opts.cells.empty() && opts.where.empty() && !cell_selected(c, "default")) {
      ++outside_default;
      continue;
    }
    run.jobs.push_back({&c, not_runnable_reason(c, opts, chosen || !opts.where.empty())});
  }
  if (outside_default > 0)
    run.err << fmt::format("opmatrix run: the local default, {} of the matrix's {} cells; the other {} run on GitHub "
                           "(the GitHub set: `opmatrix list --where github`), on a GPU machine, or here with --cell ID\n",
                           run.jobs.size(), run.matrix->cells.size(), outside_default);
  run.runnable = static_cast<int>(std::count_if(run.jobs.begin(), run.jobs.end(), [](const RunJob& j) { return j.runs(); }));
}

// A cell without a project checks opmatrix's own kernels/ and cases/: only opmatrix's
// repository has them, not a library's folder with an installed opmatrix.
StageExit check_projectless_cells(const RunState& run) {
  for (const auto& j : run.jobs)
    if (j.runs() && !j.cell->project && !fs::is_regular_file(run.config.repo_root + "/cases/CMakeLists.txt")) {
      run.err << fmt::format("opmatrix run: error: {}:{}: cell '{}' has no 'project:', so it would check opmatrix's "
                             "own kernels/ and cases/, which {} does not hold; give the cell a project (e.g. "
                             "project: {{path: .}}; `opmatrix init` writes one)\n",
                             run.opts.matrix, j.cell->pos.line, j.cell->id, run.config.repo_root);
      return kExitUsage;
    }
  return std::nullopt;
}

// A dry run still says what the run would cost where the engine is missing (what is in its
// storage then counts as nothing), and ends with the reason a run would stop.
StageExit check_engine_is_here(RunState& run) {
  if (run.runnable == 0) return std::nullopt;
  std::optional<std::string> why = run.engine->unavailable_reason();
  if (!why) return std::nullopt;
  if (run.opts.dry_run) {
    run.engine_missing = *why;
    return std::nullopt;
  }
  run.err << "opmatrix run: error: " << *why << "\n";
  return kExitFailed;
}

}  // namespace

StageExit select_cells(RunState& run) {
  choose_jobs(run);
  if (StageExit bad = check_projectless_cells(run)) return bad;
  return check_engine_is_here(run);
}

}  // namespace opmatrix
