#include "pipeline/schedule_images.h"

#include <filesystem>

namespace fs = std::filesystem;

namespace opmatrix {

void schedule_images(RunState& run) {
  fs::create_directories(run.results_dir);
  // While one cell compiles, the next cells' images are built (downloads, mostly): the cold
  // wall time comes near max(downloads, compiles) rather than their sum. Not for
  // --images-only (no compile to hide builds behind; the workers are the builders) nor the
  // host engine (no images).
  if (run.opts.images_only || run.opts.prefetch <= 0 || run.engine->name() == "host" || run.to_run.size() < 2) return;
  LookAheadSettings la = default_look_ahead_settings(run.opts.prefetch, run.results_dir);
  la.say = run.progress;
  run.look_ahead.emplace(*run.engine, run.to_run, std::move(la));
}

}  // namespace opmatrix
