// The `cell` check: a cell not run here says why (run/cell_runner.h, skipped_cell), so that
// every cell of a report has a result.
#include "checks/registry.h"

namespace opmatrix {

namespace {

const bool kRegistered = (register_check(160, {"cell", {}, "skipped_cell", CheckPer::cell,
                                               "a cell not run here says why (needs a GPU, a GitHub-only index)",
                                               "(skip with the reason)", {}}),
                          true);

}  // namespace

}  // namespace opmatrix
