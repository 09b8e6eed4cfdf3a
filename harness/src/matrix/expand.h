// GitHub Actions `strategy.matrix` semantics for a cell template's `matrix:` block:
// the product of the axes, minus `exclude`, plus `include` (which extends matching
// combinations with new keys, or else adds a combination of its own).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "matrix/diagnostic.h"

namespace opmatrix {

using Combination = std::vector<std::pair<std::string, std::string>>;  // key order = file order

struct Axis {
  std::string name;
  SourcePos pos;
  std::vector<std::string> values;
};

struct ComboEntry {
  SourcePos pos;
  Combination values;
};

struct MatrixAxes {
  SourcePos pos;
  std::vector<Axis> axes;
  std::vector<ComboEntry> include;
  std::vector<ComboEntry> exclude;
};

// Errors (exclude that removes nothing, include that matches nothing and leaves axes unset)
// go to `diag` at the entry's position.
std::vector<Combination> expand_axes(const MatrixAxes& spec, Diagnostics& diag);

const std::string* lookup(const Combination& combo, const std::string& key);

}  // namespace opmatrix
