#include "images/look_ahead_order.h"

#include <algorithm>
#include <map>
#include <numeric>

namespace opmatrix {

namespace {

// Cells that wait for the same new images: one job of the flow shop.
struct Group {
  std::vector<std::size_t> cells;
  double image_seconds = 0;  // a: building its images
  double cell_seconds = 0;   // b: running its cells
};

std::vector<Group> groups_by_images(const std::vector<double>& builds, const std::vector<TimedCell>& cells) {
  std::vector<Group> groups;
  std::map<std::vector<std::size_t>, std::size_t> index;  // sorted image set -> group, in first-seen order
  for (std::size_t c = 0; c < cells.size(); ++c) {
    std::vector<std::size_t> images = cells[c].images;
    std::sort(images.begin(), images.end());
    auto [at, fresh] = index.emplace(images, groups.size());
    if (fresh) {
      Group g;
      for (const auto i : images)
        if (i < builds.size()) g.image_seconds += builds[i];
      groups.push_back(g);
    }
    groups[at->second].cells.push_back(c);
    groups[at->second].cell_seconds += cells[c].seconds;
  }
  return groups;
}

std::vector<std::size_t> johnson_order(std::vector<Group> groups) {
  std::vector<Group> first, last;
  for (auto& g : groups) (g.image_seconds < g.cell_seconds ? first : last).push_back(std::move(g));
  std::stable_sort(first.begin(), first.end(), [](const Group& x, const Group& y) { return x.image_seconds < y.image_seconds; });
  std::stable_sort(last.begin(), last.end(), [](const Group& x, const Group& y) { return x.cell_seconds > y.cell_seconds; });
  std::vector<std::size_t> order;
  for (const auto* part : {&first, &last})
    for (const auto& g : *part) order.insert(order.end(), g.cells.begin(), g.cells.end());
  return order;
}

std::vector<TimedCell> in_order(const std::vector<TimedCell>& cells, const std::vector<std::size_t>& order) {
  std::vector<TimedCell> out;
  out.reserve(order.size());
  for (const auto c : order) out.push_back(cells[c]);
  return out;
}

}  // namespace

bool LookAheadOrder::reordered() const {
  for (std::size_t k = 0; k < order.size(); ++k)
    if (order[k] != k) return true;
  return false;
}

LookAheadOrder order_for_look_ahead(const std::vector<double>& image_build_seconds, const std::vector<TimedCell>& cells) {
  LookAheadOrder out;
  out.order.resize(cells.size());
  std::iota(out.order.begin(), out.order.end(), std::size_t{0});
  out.given_order_seconds = out.wall_seconds = look_ahead_wall_seconds(image_build_seconds, cells);
  const std::vector<std::size_t> johnson = johnson_order(groups_by_images(image_build_seconds, cells));
  const double johnson_seconds = look_ahead_wall_seconds(image_build_seconds, in_order(cells, johnson));
  if (johnson_seconds < out.wall_seconds) {
    out.order = johnson;
    out.wall_seconds = johnson_seconds;
  }
  return out;
}

}  // namespace opmatrix
