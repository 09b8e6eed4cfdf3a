// One cause, one red for a setup.py that fails both pip's metadata step and the build
// (metadata_rule.cpp, a cell rule).
#pragma once

#include <vector>

#include "results/cell_result.h"

namespace opmatrix {

// Where the build is red, a `requirements` red of kind "metadata" becomes a skip that points to it.
void metadata_explained_by_build(std::vector<CheckResult>& checks);

}  // namespace opmatrix
