// A project folder's own name, as its users know it: the distribution name its setup.py,
// setup.cfg or pyproject.toml declares, else its CMake project(); "" when none says.
#pragma once

#include <filesystem>
#include <string>

namespace opmatrix {

std::string project_name(const std::filesystem::path& dir);

}  // namespace opmatrix
