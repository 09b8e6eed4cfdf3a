// The explicit state `opmatrix run` hands from stage to stage. cli/run_command.cpp composes the
// stages (open -> select -> plan -> cost -> schedule images -> run cells -> cross-load ->
// summarize); each fills its own part below and reads only what the stages before it filled,
// so what a stage depends on is written here rather than captured in one long function.
#pragma once

#include <atomic>
#include <chrono>
#include <iosfwd>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "matrix/model.h"
#include "results/cell_result.h"
#include "run/cache_key.h"
#include "run/cell_runner.h"
#include "engine/engine.h"
#include "images/image_prefetch.h"

namespace opmatrix {

constexpr int kExitInterrupted = 130;

// A stage's verdict: nullopt goes on to the next stage; a value ends the run with that status.
using StageExit = std::optional<int>;

// One selected cell; it runs here when skip_reason is "" (else it is reported as skipped).
struct RunJob {
  const Cell* cell = nullptr;
  std::string skip_reason;
  bool runs() const { return skip_reason.empty(); }
};

// What the worker of one job left for the summary (only that job's worker writes it).
struct JobOutcome {
  CellResult result;
  bool written = false;  // results/<cell>.json holds `result`
  std::string busy;      // the other run that held the cell's build folder (it did not run here)
  std::optional<std::chrono::steady_clock::time_point> ended;  // when run_cell returned
};

struct RunState {
  RunState(const RunOptions& options, std::ostream& out_stream, std::ostream& err_stream)
      : opts(options), out(out_stream), err(err_stream) {}
  // `progress` and the look-ahead hold references into it.
  RunState(const RunState&) = delete;
  RunState& operator=(const RunState&) = delete;

  const RunOptions& opts;
  std::ostream& out;
  std::ostream& err;

  // open_run
  std::optional<Matrix> matrix;
  EngineConfig config;
  std::unique_ptr<SharedBuildEngine> engine;
  std::string results_dir;  // absolute

  // select_cells
  std::vector<RunJob> jobs;  // point into `matrix`
  int runnable = 0;          // jobs that run here
  std::optional<std::string> engine_missing;  // a dry run's: why a real run would stop

  // plan_run
  int parallel_cells = 1;
  bool late_worker = false;  // a second worker joins once the look-ahead has no image left to build
  RunSettings settings;
  std::chrono::steady_clock::time_point started;
  std::mutex out_mutex;
  Progress progress;   // "[  12.3s] cell: line" on err, one line at a time
  SourceParts sources;  // source_parts of the repository and opmatrix's data
  std::string commit;  // the repository's commit, recorded in each result

  // run_cost_gate
  // Cells whose last result does not stand, in the order they run: the one that waits least
  // for images (images/look_ahead_order.h) where one worker runs them, else job order.
  std::vector<const Cell*> to_run;
  // Jobs in the order the workers take them: the cached and skipped first (they start nothing),
  // then those of to_run in its order.
  std::vector<std::size_t> job_order;

  // schedule_images (declared after `engine`, so it ends before the engine does)
  std::optional<ImageLookAhead> look_ahead;

  // run_cell_workers
  std::vector<JobOutcome> outcomes;  // by job
  std::atomic<bool> images_failed{false};
  std::string cold_run;  // the closing line of what images cost the run; "" for none

  double seconds() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  }
};

}  // namespace opmatrix
