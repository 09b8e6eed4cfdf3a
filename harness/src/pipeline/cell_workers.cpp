#include "pipeline/cell_workers.h"

#include <atomic>
#include <thread>

#include "pipeline/cell_job.h"
#include "pipeline/cold_run_line.h"
#include "pipeline/image_job.h"
#include "run/cell_lock.h"
#include "engine/process.h"

namespace opmatrix {

void run_cell_workers(RunState& run) {
  run.outcomes.assign(run.jobs.size(), JobOutcome{});
  const std::string holder = this_run_holder("opmatrix run, results in " + run.results_dir);
  std::atomic<std::size_t> next{0};
  auto worker = [&] {
    for (;;) {
      const std::size_t k = next++;
      if (k >= run.job_order.size() || stop_requested().load()) return;
      const std::size_t i = run.job_order[k];
      if (run.opts.images_only) ensure_job_image(run, run.jobs[i]);
      else run_cell_job(run, i, holder);
    }
  };
  const auto workers_started = std::chrono::steady_clock::now();
  std::vector<std::thread> threads;
  for (int t = 0; t < run.parallel_cells; ++t) threads.emplace_back(worker);
  // The second worker (RunState::late_worker), from when the look-ahead has no image left to build.
  auto work_left = [&] { return next.load() < run.job_order.size() && !stop_requested().load(); };
  if (run.late_worker && run.look_ahead)
    threads.emplace_back([&] {
      if (!run.look_ahead->wait_walked([&] { return !work_left(); }) || !work_left()) return;
      run.progress("run", "no image left to build: a second cell at a time from here");
      worker();
    });
  for (auto& t : threads) t.join();
  if (run.look_ahead) run.look_ahead->finish();  // every cell started: nothing left ahead, or a stop
  run.cold_run = cold_run_line(run, workers_started, std::chrono::steady_clock::now());
}

}  // namespace opmatrix
