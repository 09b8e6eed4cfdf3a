// Where opmatrix finds what a run needs besides the matrix: the built-in Containerfiles, the
// in-cell scripts and the podman configuration. An installed opmatrix has them under
// PREFIX/share/opmatrix; a binary in a build tree uses its source tree.
#pragma once

#include <string>

namespace opmatrix {

// The folder holding containers/ and scripts/cell/ (absolute), or "" when none is found.
// Looked for, in order: $OPMATRIX_DATA_DIR, <the executable's folder>/../share/opmatrix, the
// source tree this binary was built from.
std::string data_root();

// Whether `dir` holds what a run needs (containers/ and scripts/cell/probe.py).
bool is_data_root(const std::string& dir);

}  // namespace opmatrix
