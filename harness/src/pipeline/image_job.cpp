#include "pipeline/image_job.h"

#include <filesystem>

#include <fmt/format.h>

#include "checks/registry.h"
#include "run/log_ticker.h"

namespace fs = std::filesystem;

namespace opmatrix {

void ensure_job_image(RunState& run, const RunJob& job) {
  if (!job.runs()) return;
  const std::string& id = job.cell->id;
  fs::create_directories(run.results_dir + "/logs/" + id);
  run.progress(id, "image ...");
  const std::string log = step_log_path(run.results_dir, id, "image");
  ImageOutcome img;
  {
    LogTicker ticker(log, 10, [&](const std::string& line) { run.progress(id, "image: " + line); });
    img = run.engine->ensure_image(*job.cell, log, find_step("image")->timeout_s);
  }
  run.progress(id, fmt::format("image {} {} ({:.1f} s)", img.built ? "built" : "present",
                               img.ok ? img.tag : "FAILED: " + img.error, img.seconds));
  if (!img.ok) run.images_failed = true;
}

}  // namespace opmatrix
