#include "pipeline/plan_run.h"

#include <algorithm>
#include <ostream>
#include <thread>

#include <fmt/format.h>

#include "run/cache_key.h"
#include "engine/process.h"
#include "run/source_commit.h"

namespace opmatrix {

void plan_run(RunState& run) {
  run.settings.results_dir = run.results_dir;
  const int cores = std::max(1u, std::thread::hardware_concurrency());
  // N cells x their build jobs stays within the cores: no oversubscription. More cells at
  // once than cores would still run N compilers (1 job each), so the cells at once are
  // capped at the cores; and at the cells that can run, so a lone cell gets every core.
  run.parallel_cells = std::max(1, std::min({std::max(1, run.opts.jobs), cores, run.runnable}));
  run.settings.build_jobs = run.opts.build_jobs > 0 ? run.opts.build_jobs : std::max(1, cores / run.parallel_cells);
  // With --jobs not given, a cell's steps other than its compile (its checks, one process at a
  // time) leave a core to the images being built beside it; once none is left to build, that
  // core would idle through every later cell's checks (the 0.27.0 cold main job: its last image
  // built at 1441 s of 1765, three cells after it one at a time). A second worker takes it; two
  // compiles that meet then share the cores.
  run.late_worker = run.opts.jobs == 0 && !run.opts.images_only && cores >= 2 && run.parallel_cells == 1 &&
                    run.runnable >= 2;

  install_stop_handlers();
  run.started = std::chrono::steady_clock::now();
  run.progress = [&run](const std::string& cell, const std::string& line) {
    std::lock_guard<std::mutex> lock(run.out_mutex);
    run.err << fmt::format("[{:7.1f}s] {}: {}\n", run.seconds(), cell, line) << std::flush;
  };
  run.sources = source_parts(run.config.repo_root, run.config.data_root);
  run.commit = source_commit(run.config.repo_root);
}

}  // namespace opmatrix
