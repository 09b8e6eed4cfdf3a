#include "run/cache_key.h"

#include <algorithm>
#include <filesystem>
#include <vector>

#include "matrix/to_json.h"
#include "util/atomic_write.h"
#include "util/hash.h"
#include "version.h"

namespace fs = std::filesystem;

namespace opmatrix {

std::string sources_hash(const std::string& repo_root) { return tree_hash(repo_root, {"kernels", "cases", "scripts/cell"}); }

std::string tree_hash(const std::string& repo_root, const std::vector<std::string>& dirs) {
  std::vector<std::string> files;
  for (const auto& dir : dirs) {
    std::error_code ec;
    for (const auto& e : fs::recursive_directory_iterator(fs::path(repo_root) / dir, ec))
      if (e.is_regular_file()) files.push_back(e.path().string());
  }
  std::sort(files.begin(), files.end());
  Fnv64 h;
  for (const auto& f : files) h.add(f.substr(repo_root.size())).add(read_text_file(f));
  return h.hex();
}

std::string cell_cache_key(const Cell& cell, const std::string& image, const std::string& sources) {
  if (image.empty()) return "";
  return Fnv64().add("opmatrix-cache-v1").add(kOpmatrixVersion).add(cell_to_json(cell).dump()).add(image).add(sources).hex();
}

}  // namespace opmatrix
