#include "pipeline/run_cost_gate.h"

#include <algorithm>
#include <numeric>
#include <ostream>

#include <fmt/format.h>

#include "pipeline/cell_cache.h"
#include "images/run_cost_survey.h"

namespace opmatrix {

namespace {

// The dry run's judgement, said as what would happen; it starts nothing either way.
bool dry_run_fits(const SpaceVerdict& verdict, std::ostream& err) {
  const std::string who = "opmatrix run --dry-run";
  for (const auto& p : verdict.problems) err << who << ": would not fit: " << p << "\n";
  err << who << (verdict.fits ? ": it fits; nothing was started\n"
                              : ": `opmatrix run` would stop before starting (free space, select fewer cells with "
                                "--cell, or --yes); nothing was started\n");
  return verdict.fits;
}

// A real run's: false (the numbers and --yes on `err`) when it cannot fit and the person did
// not say to go on anyway.
bool real_run_fits(const SpaceVerdict& verdict, bool yes, std::ostream& err) {
  if (verdict.fits) return true;
  for (const auto& p : verdict.problems)
    err << (yes ? "opmatrix run: warning: not enough disk: " : "opmatrix run: error: not enough disk: ") << p << "\n";
  if (yes) return true;
  err << "opmatrix run: nothing was started; free space (e.g. `podman rmi` of images no cell uses), select fewer "
         "cells with --cell, or pass --yes to start anyway\n";
  return false;
}

// The jobs as the workers take them: those that start nothing first, then run.to_run's, in the
// order the survey chose for them.
void order_jobs(RunState& run, const std::vector<std::size_t>& cell_order) {
  std::vector<const Cell*> ordered;
  for (const auto c : cell_order) ordered.push_back(run.to_run[c]);
  run.to_run = std::move(ordered);
  run.job_order.clear();
  std::vector<std::size_t> of_to_run(run.to_run.size());
  for (std::size_t j = 0; j < run.jobs.size(); ++j) {
    const auto at = std::find(run.to_run.begin(), run.to_run.end(), run.jobs[j].cell);
    if (at == run.to_run.end() || !run.jobs[j].runs()) run.job_order.push_back(j);
    else of_to_run[static_cast<std::size_t>(at - run.to_run.begin())] = j;
  }
  run.job_order.insert(run.job_order.end(), of_to_run.begin(), of_to_run.end());
}

// Says what the run will store and how long it takes (run.to_run: those whose last result
// does not stand; `cached` more do), and whether that fits.
bool cost_fits_or_yes(RunState& run, int cached) {
  const RunOptions& opts = run.opts;
  const auto& cells = run.to_run;
  if (cells.empty()) {
    run.err << fmt::format("opmatrix run: every cell to run ({}) has a last result that still stands: nothing to build\n",
                           cached);
    return true;
  }
  // One survey; a dry run says it as what would happen.
  const std::string who = opts.dry_run ? "opmatrix run --dry-run" : "opmatrix run";
  RunCost cost = survey_run_cost(*run.engine, cells, run.results_dir, run.parallel_cells, opts.images_only,
                                 opts.disk_budget_gb * 1e9);
  // No room: what the caller can free (--disk-budget: the images it kept, whose cells are done)
  // goes first, and the free space is read again.
  if (!opts.dry_run && !judge_space(cost.needs).fits && opts.make_room && opts.make_room())
    cost = survey_run_cost(*run.engine, cells, run.results_dir, run.parallel_cells, opts.images_only,
                           opts.disk_budget_gb * 1e9);
  order_jobs(run, cost.cell_order);
  run.err << fmt::format("{}: {} cell{} {}{}; {}:\n", who, cells.size(), cells.size() == 1 ? "" : "s",
                         opts.dry_run ? "would run" : "to run", cached ? fmt::format(" ({} more cached)", cached) : "",
                         opts.dry_run ? "what it would cost" : "what it costs before it starts")
          << render_run_cost(cost);
  const SpaceVerdict verdict = judge_space(cost.needs);
  // A missing tool stops no cell that does not need it: a real run goes on; a dry run fails.
  const bool fits = opts.dry_run ? dry_run_fits(verdict, run.err) : real_run_fits(verdict, opts.yes, run.err);
  if (!opts.dry_run || cost.blockers.empty()) return fits;
  run.err << "opmatrix run --dry-run: some cells would fail at their image step (see above)\n";
  return false;
}

// Sorts the runnable jobs into run.to_run and the cached; a dry run says which is which.
int sort_out_cached(RunState& run) {
  int cached = 0;
  for (const auto& j : run.jobs) {
    const Standing standing = j.runs() && !run.opts.images_only ? standing_result(run, *j.cell, cache_key_of(run, j))
                                                                : Standing{};
    const bool stands = standing.result.has_value();
    if (run.opts.dry_run)
      run.out << fmt::format("{:<7} {}{}\n", !j.runs() ? "skip" : stands ? "cached" : "run", j.cell->id,
                             !j.runs() ? ": " + j.skip_reason
                             : stands || standing.why_it_runs.empty() ? ""
                                                                      : " (" + standing.why_it_runs + ")");
    if (!j.runs()) continue;
    if (stands) ++cached;
    else run.to_run.push_back(j.cell);
  }
  return cached;
}

}  // namespace

StageExit run_cost_gate(RunState& run) {
  run.job_order.resize(run.jobs.size());
  std::iota(run.job_order.begin(), run.job_order.end(), std::size_t{0});  // until the survey orders them
  // A run with only skips costs nothing and says nothing; a dry run always answers.
  if (run.runnable == 0 && !run.opts.dry_run) return std::nullopt;
  const bool fits = cost_fits_or_yes(run, sort_out_cached(run));
  if (run.opts.dry_run) {
    if (run.engine_missing)
      run.err << "opmatrix run --dry-run: `opmatrix run` would stop: " << *run.engine_missing << "\n";
    return fits && !run.engine_missing ? kExitOk : kExitFailed;
  }
  if (!fits) return kExitFailed;
  return std::nullopt;
}

}  // namespace opmatrix
