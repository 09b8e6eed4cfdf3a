#include "images/cold_run_figures.h"

#include <algorithm>

#include <fmt/format.h>

namespace opmatrix {

namespace {

// The spans as disjoint ones, sorted: with --jobs > 1 cells run at once, and time two cells
// compiled together is still one second beside a build.
std::vector<TimeSpan> merged(std::vector<TimeSpan> spans) {
  std::sort(spans.begin(), spans.end(), [](const TimeSpan& a, const TimeSpan& b) { return a.start < b.start; });
  std::vector<TimeSpan> out;
  for (const auto& s : spans) {
    if (s.end <= s.start) continue;
    if (!out.empty() && s.start <= out.back().end) out.back().end = std::max(out.back().end, s.end);
    else out.push_back(s);
  }
  return out;
}

double length(const TimeSpan& s) { return std::max(0.0, s.end - s.start); }

}  // namespace

double ColdRunFigures::sum_over_wall() const {
  return wall_seconds > 0 ? (image_seconds + cell_seconds) / wall_seconds : 0;
}

ColdRunFigures cold_run_figures(const std::vector<TimeSpan>& builds, const std::vector<TimeSpan>& failed_builds,
                                const std::vector<TimeSpan>& cells, double wall) {
  ColdRunFigures f;
  f.wall_seconds = wall;
  const std::vector<TimeSpan> busy = merged(cells);
  for (const auto& b : builds) {
    ++f.images_built;
    f.image_seconds += length(b);
    for (const auto& c : busy) f.overlap_seconds += length({std::max(b.start, c.start), std::min(b.end, c.end)});
  }
  for (const auto& b : failed_builds) {
    ++f.builds_failed;
    f.failed_seconds += length(b);
  }
  for (const auto& c : cells) f.cell_seconds += length(c);
  return f;
}

std::string render_cold_run(const ColdRunFigures& f) {
  std::string out =
      f.images_built == 0
          ? std::string("images: none built")
          : fmt::format("cold images: {} built in {:.0f} s ({:.0f} s of it beside a compiling cell)", f.images_built,
                        f.image_seconds, f.overlap_seconds);
  if (f.builds_failed > 0)
    out += fmt::format("; {} failed build{} ({:.0f} s, not counted)", f.builds_failed, f.builds_failed == 1 ? "" : "s",
                       f.failed_seconds);
  out += fmt::format("; cells {:.0f} s; wall {:.0f} s", f.cell_seconds, f.wall_seconds);
  if (f.wall_seconds > 0) out += fmt::format("; sum/wall {:.2f}", f.sum_over_wall());
  return out;
}

}  // namespace opmatrix
