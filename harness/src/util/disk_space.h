// Free space of the filesystem a path is on, for saying before a run whether it fits.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace opmatrix {

struct DiskSpace {
  std::uint64_t device = 0;  // st_dev: two paths on one filesystem share it
  double free_bytes = 0;     // what an unprivileged writer may still use (f_bavail)
};

// For a path that does not exist yet (a work dir a run will create), its nearest existing
// parent's filesystem; nullopt when even that cannot be read.
std::optional<DiskSpace> disk_space(const std::string& path);

}  // namespace opmatrix
