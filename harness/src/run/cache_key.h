// When a cell's last result can stand: the key covers everything that can change it — the
// cell's declaration, its image (content-hash tag), the sources and build files the cell
// builds (kernels/, cases/, scripts/cell/), the check registry and the harness version.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "matrix/model.h"

namespace opmatrix {

// What a cell checks besides its declaration and image, by name: kernels/ and cases/ of the
// repository, scripts/cell of opmatrix's data root (then, per cell, a project's folder and samples).
using SourceParts = std::vector<std::pair<std::string, std::string>>;
SourceParts source_parts(const std::string& repo_root, const std::string& data_root);
// Names and contents of every file under `dirs` (relative to repo_root), leaving out what
// builds and version control make (.git, build, dist, *.egg-info, __pycache__, .opmatrix)
// and the folders in `skip` (absolute): a project at the matrix's own folder holds the run's
// work and results folders, which change with every run.
std::string tree_hash(const std::string& repo_root, const std::vector<std::string>& dirs,
                      const std::vector<std::string>& skip = {});

// A folder tree_hash() and the in-cell copy of a project leave out.
bool is_generated_folder(const std::string& name);

// The key and what it is made of, by name (the version, the check registry, the cell's
// declaration, its image, each source part), so that a cell that runs again can say which part
// changed. key "" when the image is unknown (nothing can be reused then).
struct CacheKey {
  std::string key;
  nlohmann::json parts = nlohmann::json::object();  // name -> value (a hash, or the image tag and version)
};
CacheKey cell_cache_key(const Cell& cell, const std::string& image, const SourceParts& sources);

// Why a cell whose last result was made with `before` (its parts) runs again under `now`: the
// names of the parts that differ, the image and version with their values; "" when none differs.
std::string changed_parts(const nlohmann::json& before, const nlohmann::json& now);

}  // namespace opmatrix
