// The order a run takes its cells in, so that they wait least for the images the look-ahead
// builds beside them (images/image_prefetch.h).
//
// A cold run is a two-stage flow shop: one builder makes images (network, disk), one worker
// runs cells (CPU); a cell starts once the cell before it ended and its images are built. In
// the matrix's own order the first cells may need the longest builds while the cheap ones come
// last: the 0.15.0 main job waited 376 s of its 1385 s of cells for two images. Johnson's rule
// (S. M. Johnson, 1954: optimal for two stages) orders the cells by the images they share:
// first those whose images build in less time than their cells take, the quickest images first
// (an image already present builds in none), then the rest, the longest cells first — the
// builder is never idle while a long cell runs, and the last image built is followed by little
// work. Images several groups share (a suite's mmdebstrap base) are counted in each group for
// the rule, and once in the timeline that decides: the rule's order is kept only where the
// timeline says it ends sooner than the matrix's order.
#pragma once

#include <cstddef>
#include <vector>

#include "images/run_cost.h"

namespace opmatrix {

struct LookAheadOrder {
  std::vector<std::size_t> order;   // indexes into the cells, in the order they run
  double wall_seconds = 0;          // look_ahead_wall_seconds in that order
  double given_order_seconds = 0;   // and in the order the cells were given
  bool reordered() const;
};

// `image_build_seconds` and `cells` as look_ahead_wall_seconds takes them (the cells in the
// matrix's order).
LookAheadOrder order_for_look_ahead(const std::vector<double>& image_build_seconds, const std::vector<TimedCell>& cells);

}  // namespace opmatrix
