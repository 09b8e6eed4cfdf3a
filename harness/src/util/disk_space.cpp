#include "util/disk_space.h"

#include <sys/stat.h>
#include <sys/statvfs.h>

#include <filesystem>

namespace fs = std::filesystem;

namespace opmatrix {

std::optional<DiskSpace> disk_space(const std::string& path) {
  if (path.empty()) return std::nullopt;
  fs::path p = fs::absolute(path).lexically_normal();
  std::error_code ec;
  while (!fs::exists(p, ec) && p.has_parent_path() && p != p.parent_path()) p = p.parent_path();
  struct stat st {};
  struct statvfs vfs {};
  if (::stat(p.c_str(), &st) != 0 || ::statvfs(p.c_str(), &vfs) != 0) return std::nullopt;
  DiskSpace out;
  out.device = static_cast<std::uint64_t>(st.st_dev);
  out.free_bytes = static_cast<double>(vfs.f_bavail) * static_cast<double>(vfs.f_frsize);
  return out;
}

}  // namespace opmatrix
