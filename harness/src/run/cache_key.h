// When a cell's last result can stand: the key covers everything that can change it — the
// cell's declaration, its image (content-hash tag), the sources and build files the cell
// builds (kernels/, cases/, scripts/cell/), the check registry and the harness version.
#pragma once

#include <string>
#include <vector>

#include "matrix/model.h"

namespace opmatrix {

// kernels/ and cases/ of the repository, scripts/cell of opmatrix's data root.
std::string sources_hash(const std::string& repo_root, const std::string& data_root);
// Names and contents of every file under `dirs` (relative to repo_root), leaving out what
// builds and version control make (.git, build, dist, *.egg-info, __pycache__, .opmatrix)
// and the folders in `skip` (absolute): a project at the matrix's own folder holds the run's
// work and results folders, which change with every run.
std::string tree_hash(const std::string& repo_root, const std::vector<std::string>& dirs,
                      const std::vector<std::string>& skip = {});

// A folder tree_hash() and the in-cell copy of a project leave out.
bool is_generated_folder(const std::string& name);

// "" when the image is unknown (nothing can be reused then).
std::string cell_cache_key(const Cell& cell, const std::string& image, const std::string& sources);

}  // namespace opmatrix
