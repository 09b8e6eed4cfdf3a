#include "pipeline/cold_run_line.h"

#include "images/cold_run_figures.h"

namespace opmatrix {

std::string cold_run_line(const RunState& run, std::chrono::steady_clock::time_point origin,
                          std::chrono::steady_clock::time_point done) {
  SharedBuildEngine& engine = *run.engine;
  if (engine.name() == "host") return "";
  auto at = [&](std::chrono::steady_clock::time_point t) { return std::chrono::duration<double>(t - origin).count(); };
  std::vector<TimeSpan> built, failed, cells;
  for (const auto& b : engine.builds()) (b.ok ? built : failed).push_back({at(b.start), at(b.end)});
  const auto waits = engine.image_waits();
  for (std::size_t i = 0; i < run.jobs.size(); ++i) {
    const auto& ended = run.outcomes[i].ended;
    if (!ended) continue;
    // A cell's own time starts when its image is in hand (its worker's ensure_image returned).
    for (const auto& w : waits)
      if (w.cell_id == run.jobs[i].cell->id) cells.push_back({at(w.end), at(*ended)});
  }
  if (built.empty() && failed.empty() && cells.empty()) return "";
  return render_cold_run(cold_run_figures(built, failed, cells, at(done)));
}

}  // namespace opmatrix
