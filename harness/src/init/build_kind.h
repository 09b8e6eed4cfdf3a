// How an op library builds, as opmatrix builds it: `setuptools` (setup.py, or pyproject.toml
// with a setuptools backend) or `cmake` (a CMakeLists.txt that finds Torch).
#pragma once

#include <filesystem>
#include <string>

namespace opmatrix {

struct BuildKind {
  std::string kind;    // "setuptools" | "cmake" | "" (none found)
  std::string reason;  // one line: which file(s) decided it
  std::string error;   // when kind is "": what was looked for and what was there instead
  bool setup_py = false;  // there is a setup.py (a matrix's `kind: setuptools` asks for one)
};

BuildKind detect_build_kind(const std::filesystem::path& dir);

}  // namespace opmatrix
