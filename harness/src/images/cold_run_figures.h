// What a run's image builds cost in wall time, from the run's own timestamps: how long the
// builds took, how much of that ran beside a cell's compile and tests (the look-ahead's gain,
// images/image_prefetch.h), the cells' time without their images, and the wall time. The one line
// `opmatrix run` ends with, and the figures bench/RESULTS.md quotes (docs/cli.md#run).
#pragma once

#include <string>
#include <vector>

namespace opmatrix {

// Seconds since the run's workers started.
struct TimeSpan {
  double start = 0;
  double end = 0;
};

struct ColdRunFigures {
  int images_built = 0;
  double image_seconds = 0;    // the builds' own time, added up
  double overlap_seconds = 0;  // of that, the time some cell was past its image step
  int builds_failed = 0;
  double failed_seconds = 0;
  double cell_seconds = 0;     // each cell from its image in hand to its end, added up
  double wall_seconds = 0;
  // (images + cells) / wall: 1 when nothing overlapped; what the overlap saved shows above 1.
  double sum_over_wall() const;
};

// `cells`: per cell run, from the moment its image was in hand to its end; `wall`: the workers'
// time from first start to last end.
ColdRunFigures cold_run_figures(const std::vector<TimeSpan>& builds, const std::vector<TimeSpan>& failed_builds,
                                const std::vector<TimeSpan>& cells, double wall);

// "cold images: 5 built in 812 s (640 s of it beside a compiling cell); cells 1530 s; wall
// 1702 s; sum/wall 1.37", or "images: none built; cells …" when every image was present.
std::string render_cold_run(const ColdRunFigures& f);

}  // namespace opmatrix
