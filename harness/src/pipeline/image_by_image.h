// --disk-budget GB, for `opmatrix run` and `opmatrix atlas run`: the selected cells one image at a
// time — the image built where missing, its cells run, then the images this run built removed,
// oldest first, while together they take more than the budget (atlas/disk_budget.h). Images that
// were there before the run are never removed. Each image's cells are one `opmatrix run` of their
// own, so a rerun resumes: cells whose results still stand are not run again, and an image whose
// cells are all done is not built again. While one image's cells run, the next image with cells
// to run is built beside them where the budget and the disk hold both (an image is mostly
// downloads, a cell mostly CPU), as `run`'s look-ahead does within one run.
#pragma once

#include <iosfwd>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cli/commands.h"
#include "matrix/model.h"

namespace opmatrix {

// Cells (id, the image tag it runs in) grouped by image, in the order each image is first needed;
// a cell keeps its place within its image's group. A cell with no image of its own ("" — the host
// engine) is a group by itself.
std::vector<std::vector<std::string>> group_cells_by_image(const std::vector<std::pair<std::string, std::string>>& cells);

// Why the next image may not be built while this one's cells run, in words ("" where it may): the
// images this run built and keeps, this one (0 when it was there before), and the next (each with
// room to commit its largest layer) must be within the budget, and the next within the storage's
// free space (nullopt: unknown, which holds nothing back).
struct AheadRoom {
  double kept_bytes = 0;
  double current_bytes = 0;
  double next_bytes = 0;
  double budget_bytes = 0;
  std::optional<double> free_bytes;
};
std::string no_room_to_build_ahead(const AheadRoom& room);

// Runs `groups` (cell ids of `m`, one image each) in turn under `opts.disk_budget_gb`. `command`
// names the caller in what it prints ("opmatrix atlas"). The worst exit status of the groups; an
// interrupt or bad usage ends it at once.
int run_image_by_image(const RunOptions& opts, const Matrix& m, const std::vector<std::vector<std::string>>& groups,
                       const std::string& command, std::ostream& out, std::ostream& err);

}  // namespace opmatrix
