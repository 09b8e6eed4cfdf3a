// When a cell's last result can stand: the key covers everything that can change it — the
// cell's declaration, its image (content-hash tag), the sources and build files the cell
// builds (kernels/, cases/, scripts/cell/), and the harness version.
#pragma once

#include <string>
#include <vector>

#include "matrix/model.h"

namespace opmatrix {

std::string sources_hash(const std::string& repo_root);
// Names and contents of every file under `dirs` (relative to repo_root).
std::string tree_hash(const std::string& repo_root, const std::vector<std::string>& dirs);

// "" when the image is unknown (nothing can be reused then).
std::string cell_cache_key(const Cell& cell, const std::string& image, const std::string& sources);

}  // namespace opmatrix
