#include <filesystem>
#include <system_error>

#include "cli/commands.h"

namespace opmatrix {

std::string default_matrix_file() {
  std::error_code ec;
  for (const char* name : {"opmatrix.yaml", "matrix.yaml"})
    if (std::filesystem::is_regular_file(name, ec)) return name;
  return "opmatrix.yaml";
}

}  // namespace opmatrix
