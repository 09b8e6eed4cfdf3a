// Promises inferred from a library's reference cell: where matrix.yaml declares none for an op,
// what the library measurably has in its reference cell is what it promises in its other cells.
// A kernel it lacks there too is by design, not a break (one red, in the reference cell itself,
// where the default promise still judges it); a kernel it has there and lacks elsewhere is lost.
// An op with a CUDA kernel and no CPU kernel in a CUDA reference whose build holds device code is
// CUDA-only by design, there too; kernels under other keys than there are named as such
// (reference_kernels.h).
// Applied over all of a library's cells together, when results are read for a report.
#pragma once

#include <string>
#include <vector>

#include "results/cell_result.h"

namespace opmatrix {

struct ReferenceCell {
  const CellResult* cell = nullptr;  // none: no cell of the library builds and loads
  std::string why;                   // "declared in matrix.yaml", "the newest torch where it builds and loads"
};

// One library's cells (one project label): the cell marked `reference: true`, else among the
// cells where it builds and loads — for a wheel, preferring those whose torch its Requires-Dist
// accepts (the torch it was built for), then those of the release it pins (==2.4.0: 2.4.x) —
// the one of the newest torch.
ReferenceCell reference_cell(const std::vector<const CellResult*>& cells);

// Every library of `cells` at once: missing-kernel reds of its non-reference cells judged
// against the reference cell's measured kernels (registration results' `kernels`).
void apply_reference_promises(std::vector<CellResult>& cells);

}  // namespace opmatrix
