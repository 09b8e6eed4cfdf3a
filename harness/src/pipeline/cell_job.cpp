#include "pipeline/cell_job.h"

#include <filesystem>

#include <fmt/format.h>

#include "pipeline/cell_cache.h"
#include "run/cell_lock.h"
#include "engine/process.h"
#include "util/atomic_write.h"

namespace fs = std::filesystem;

namespace opmatrix {

namespace {

// results/<cell>.json; false (and a progress line) when it cannot be written.
bool write_cell_result(const RunState& run, const std::string& cell_id, const CellResult& r) {
  try {
    write_file_atomically(run.results_dir + "/" + cell_id + ".json", to_json(r).dump(2) + "\n");
    return true;
  } catch (const std::exception& e) {
    run.progress(cell_id, std::string("cannot write results: ") + e.what());
    return false;
  }
}

void keep_standing_result(const RunState& run, const RunJob& job, const std::string& key, CellResult old,
                          JobOutcome& outcome) {
  run.progress(job.cell->id, fmt::format("cached: key {} matches the last result ({})", key, to_string(old.status)));
  // Results written before opmatrix recorded these get them: the key proves the same
  // image tag and the same sources, so this run's image id and commit describe it too.
  if (old.image_id.empty() || old.commit.empty()) {
    if (old.image_id.empty()) old.image_id = run.engine->image_id(old.image);
    if (old.commit.empty()) old.commit = run.commit;
    old.cached = false;  // on disk, "cached" says how the result was made, not this run
    write_cell_result(run, job.cell->id, old);
    old.cached = true;
  }
  outcome.written = true;
  outcome.result = std::move(old);
}

// Two runs never build one cell in one tree: the second stops that cell and names the first
// (in outcome.busy).
std::optional<CellWorkLock> lock_build_folder(const RunState& run, const RunJob& job, const std::string& holder,
                                              JobOutcome& outcome) {
  const std::string cell_dir = fs::path(run.engine->host_build_dir(*job.cell)).parent_path().string();
  std::string other;
  std::optional<CellWorkLock> lock;
  try {
    lock = CellWorkLock::try_acquire(cell_dir, holder, &other);
  } catch (const std::exception& e) {
    other = e.what();
  }
  if (lock) return lock;
  outcome.busy = other;
  run.progress(job.cell->id, fmt::format("not run: its build folder {} is in use by another opmatrix run: {}; "
                                         "wait for that one to end, or give this run another --work-dir",
                                         cell_dir, other));
  return std::nullopt;
}

// The cell run here (its build folder held), or its skip result.
CellResult run_or_skip(RunState& run, const RunJob& job, JobOutcome& outcome) {
  if (!job.runs()) return skipped_cell(*job.cell, job.skip_reason);
  RunSettings cell_settings = run.settings;
  if (run.look_ahead) cell_settings.image_log_from_look_ahead = run.look_ahead->cell_starting(*job.cell);
  CellResult r = run_cell(*run.matrix, *job.cell, *run.engine, cell_settings, run.progress);
  outcome.ended = std::chrono::steady_clock::now();
  return r;
}

}  // namespace

void run_cell_job(RunState& run, std::size_t i, const std::string& holder) {
  const RunJob& job = run.jobs[i];
  JobOutcome& outcome = run.outcomes[i];
  const CacheKey key = cache_key_of(run, job);
  Standing standing = standing_result(run, *job.cell, key);
  if (standing.result) {
    keep_standing_result(run, job, key.key, std::move(*standing.result), outcome);
    return;
  }
  if (job.runs() && !standing.why_it_runs.empty() && standing.why_it_runs != "no result yet")
    run.progress(job.cell->id, "runs again: " + standing.why_it_runs);
  std::optional<CellWorkLock> cell_lock;  // held until the results are written
  if (job.runs() && !(cell_lock = lock_build_folder(run, job, holder, outcome))) return;
  CellResult r = run_or_skip(run, job, outcome);
  // The key names the image by its tag, and the tag of an image on a base this run makes is
  // known only once that base exists: such a cell takes its key from the tag its image step
  // ended with, or its result would never stand (a rerun right after a cold run built it again).
  const CacheKey written = key.key.empty() && !r.image.empty() ? cache_key_of(run, job, r.image) : key;
  r.cache_key = written.key;
  r.cache_key_parts = written.parts;
  r.commit = run.commit;
  if (!job.runs()) run.progress(job.cell->id, "skip: " + job.skip_reason);
  if (stop_requested().load() && job.runs()) {
    // An interrupted cell keeps no results: the next run does it again.
    run.progress(job.cell->id, "interrupted; no results written");
    return;
  }
  outcome.written = write_cell_result(run, job.cell->id, r);
  run.progress(job.cell->id, fmt::format("{} ({:.1f} s){}", to_string(r.status), r.seconds,
                                         r.meets_expectations ? "" : "  <-- not as expected"));
  outcome.result = std::move(r);
}

}  // namespace opmatrix
