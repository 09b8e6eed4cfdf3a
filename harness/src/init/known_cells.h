// The cells `opmatrix init` proposes for a new library: those every built-in image kind
// proposes (images/*.cpp, InitCell), kinds in name order, so that a new torch release is one
// edit in the module of its image kind.
#pragma once

#include <string>
#include <vector>

#include "images/image_kind.h"

namespace opmatrix {

using KnownCell = InitCell;

const std::vector<KnownCell>& known_cells();

// "<prefix>-trixie-torch2.6-cpu", "<prefix>-pypi-torch2.15.0-cu13.2": the library's prefix
// before the id the cell's kind gives it.
std::string known_cell_id(const std::string& prefix, const KnownCell& cell);

}  // namespace opmatrix
