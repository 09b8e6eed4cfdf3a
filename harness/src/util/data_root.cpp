#include "util/data_root.h"

#include <cstdlib>
#include <filesystem>
#include <system_error>

namespace fs = std::filesystem;

namespace opmatrix {

bool is_data_root(const std::string& dir) {
  std::error_code ec;
  return !dir.empty() && fs::is_regular_file(fs::path(dir) / "scripts/cell/probe.py", ec) &&
         fs::is_directory(fs::path(dir) / "containers", ec);
}

std::string data_root() {
  auto normal = [](const fs::path& p) {
    std::error_code ec;
    fs::path c = fs::weakly_canonical(p, ec);
    return (ec ? p.lexically_normal() : c).string();
  };
  // Set by hand (or by tests) it must be right: a wrong one is not silently replaced.
  if (const char* env = std::getenv("OPMATRIX_DATA_DIR"); env && *env) return is_data_root(env) ? normal(env) : "";
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const fs::path installed = exe.parent_path().parent_path() / "share/opmatrix";
    if (is_data_root(installed.string())) return normal(installed);
  }
#ifdef OPMATRIX_SOURCE_DIR
  if (is_data_root(OPMATRIX_SOURCE_DIR)) return normal(OPMATRIX_SOURCE_DIR);
#endif
  return "";
}

}  // namespace opmatrix
