// How an op library builds, as opmatrix builds it: `setuptools` (pip wheel of the folder: setup.py,
// or pyproject.toml with any PEP 517 backend) or `cmake` (a CMakeLists.txt that finds Torch).
#pragma once

#include <filesystem>
#include <string>

namespace opmatrix {

struct BuildKind {
  std::string kind;    // "setuptools" | "cmake" | "" (none found)
  std::string reason;  // one line: which file(s) decided it
  std::string error;   // when kind is "": what was looked for and what was there instead
};

BuildKind detect_build_kind(const std::filesystem::path& dir);

}  // namespace opmatrix
