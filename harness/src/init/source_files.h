// Which files of a library folder `opmatrix init` reads: its own C++/CUDA and Python sources,
// not the vendored, built or hidden ones, and not without bounds (a checkout can hold a
// whole CUDA toolkit or a virtual environment).
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace opmatrix {

struct SourceLimits {
  std::size_t max_files = 5000;          // C++ and Python files read, in all
  std::uintmax_t max_file_bytes = 2u << 20;  // larger: generated or vendored, skipped
  std::uintmax_t max_total_bytes = 64u << 20;
  int max_depth = 12;
};

struct SourceFiles {
  std::vector<std::filesystem::path> cpp;     // .cpp .cc .cxx .cu .h .hpp .cuh
  std::vector<std::filesystem::path> python;  // .py
  int skipped_large = 0;
  bool truncated = false;  // a limit was reached: the rest of the folder was not read
};

// In a stable order (sorted per folder), symbolic links not followed.
SourceFiles list_source_files(const std::filesystem::path& dir, const SourceLimits& limits = {});

// Folders never read: hidden ones, build output, vendored code, environments.
bool is_skipped_folder(const std::string& name);

}  // namespace opmatrix
