// Where `opmatrix run` finds things: the absolute paths its options name, and the repository
// the engine mounts. engine_config_for and valid_memory_limit (cli/commands.h) live beside them.
#pragma once

#include <string>

#include "cli/commands.h"

namespace opmatrix {

// `path` made absolute and normal, without a trailing '/'.
std::string absolute_path(const std::string& path);

// --repo-root, else the matrix file's folder (absolute).
std::string repo_root_for(const RunOptions& opts);

}  // namespace opmatrix
