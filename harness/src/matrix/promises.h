// Reading a project's `promises:` block (docs/matrix.md): what the library promises per op and
// as a whole, each mistake reported at its line and column.
#pragma once

#include <string>
#include <vector>

#include "matrix/diagnostic.h"
#include "matrix/model.h"
#include "matrix/yaml_tree.h"

namespace opmatrix {

// `ops`: the project's declared ops (empty: any op name is accepted).
Promises read_promises(const YamlNode& n, const std::vector<std::string>& ops, Diagnostics& diag);

}  // namespace opmatrix
