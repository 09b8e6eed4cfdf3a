#include "pipeline/run_summary.h"

#include <map>
#include <ostream>

#include <fmt/format.h>

#include "engine/process.h"
#include "report/results_set.h"

namespace opmatrix {

namespace {

struct Tally {
  int ran = 0, skipped = 0, unexpected = 0;
};

// A job whose results file this run did not write: stopped before it, or another run's.
std::string row_not_run(const RunJob& job, const JobOutcome& outcome, Tally& tally) {
  if (!outcome.busy.empty()) ++tally.unexpected;
  return fmt::format("{:<40} {:<8} {:>8}  {}\n", job.cell->id, "-", "-",
                     outcome.busy.empty() ? "not run (interrupted)" : "not run: build folder in use by " + outcome.busy);
}

std::string row_of(const CellResult& r, Tally& tally) {
  std::string summary;
  if (r.cached) {
    ++tally.ran;
    summary = "cached (key " + r.cache_key + ")";
  } else if (r.status == Status::skip) {
    ++tally.skipped;
    summary = r.checks.empty() ? "" : r.checks.front().message;
  } else {
    ++tally.ran;
    int pass = 0, bad = 0, other = 0;
    for (const auto& c : r.checks) (c.status == Status::pass ? pass : is_bad(c.status) ? bad : other)++;
    summary = fmt::format("{} checks pass, {} expected/skipped, {} unexpected", pass, other, bad);
  }
  if (!r.meets_expectations) ++tally.unexpected;
  return fmt::format("{:<40} {:<8} {:>8.1f}  {}\n", r.cell.value("id", ""), to_string(r.status),
                     r.cached ? 0.0 : r.seconds, summary);
}

}  // namespace

StageExit finish_images_only(RunState& run) {
  if (!run.opts.images_only) return std::nullopt;
  if (!run.cold_run.empty()) run.out << run.cold_run << "\n";
  return stop_requested().load() ? kExitInterrupted : run.images_failed ? kExitFailed : kExitOk;
}

// The cells this run wrote as a report judges them: beside the other results of their library in
// the folder, its reference cell's rules applied (a CUDA-only library's reference cell, judged
// alone, is not broken by "no CPU kernel"). Files are kept as measured; the report reads the same.
std::map<std::string, CellResult> as_reported(const RunState& run) {
  std::map<std::string, CellResult> out;
  for (auto& r : load_results(run.results_dir).cells) out.emplace(r.cell.value("id", ""), std::move(r));
  return out;
}

int summarize_run(RunState& run) {
  Tally tally;
  const std::map<std::string, CellResult> reported = as_reported(run);
  run.out << fmt::format("{:<40} {:<8} {:>8}  {}\n", "cell", "status", "seconds", "summary");
  for (std::size_t i = 0; i < run.jobs.size(); ++i) {
    const JobOutcome& outcome = run.outcomes[i];
    if (!outcome.written) {
      run.out << row_not_run(run.jobs[i], outcome, tally);
      continue;
    }
    // As measured (cached or not, its seconds), judged as the report judges it.
    CellResult row = outcome.result;
    const auto judged = reported.find(row.cell.value("id", ""));
    if (judged != reported.end()) {
      row.checks = judged->second.checks;
      settle_status(row);
    }
    run.out << row_of(row, tally);
  }
  run.out << fmt::format("{} cells run, {} skipped, {} not as expected; results in {} ({:.1f} s)\n", tally.ran,
                         tally.skipped, tally.unexpected, run.results_dir, run.seconds());
  if (!run.cold_run.empty()) run.out << run.cold_run << "\n";
  if (stop_requested().load()) {
    run.err << "opmatrix run: interrupted; finished cells kept their results, rerun to do the rest\n";
    return kExitInterrupted;
  }
  return tally.unexpected == 0 ? kExitOk : kExitFailed;
}

}  // namespace opmatrix
