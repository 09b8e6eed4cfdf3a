#include "init/source_files.h"

#include <algorithm>
#include <set>
#include <system_error>

namespace fs = std::filesystem;

namespace opmatrix {

namespace {

const std::set<std::string> kCppExtensions = {".cpp", ".cc", ".cxx", ".cu", ".h", ".hpp", ".cuh"};

struct Walk {
  const SourceLimits& limits;
  SourceFiles& out;
  std::uintmax_t total_bytes = 0;

  void folder(const fs::path& dir, int depth) {
    std::error_code ec;
    std::vector<fs::directory_entry> entries;
    for (fs::directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec), end; !ec && it != end;
         it.increment(ec))
      entries.push_back(*it);
    std::sort(entries.begin(), entries.end(),
              [](const fs::directory_entry& a, const fs::directory_entry& b) { return a.path() < b.path(); });
    for (const auto& e : entries) {
      if (out.truncated) return;
      const fs::file_status st = e.symlink_status(ec);
      if (ec) continue;
      const std::string name = e.path().filename().string();
      if (fs::is_directory(st)) {
        if (depth < limits.max_depth && !is_skipped_folder(name)) folder(e.path(), depth + 1);
        continue;
      }
      if (!fs::is_regular_file(st)) continue;
      const std::string ext = e.path().extension().string();
      const bool cpp = kCppExtensions.count(ext) > 0;
      if (!cpp && ext != ".py") continue;
      if (out.cpp.size() + out.python.size() >= limits.max_files) {
        out.truncated = true;
        return;
      }
      const auto size = e.file_size(ec);
      if (ec || size > limits.max_file_bytes) {
        ++out.skipped_large;
        continue;
      }
      if (total_bytes + size > limits.max_total_bytes) {
        out.truncated = true;
        return;
      }
      total_bytes += size;
      (cpp ? out.cpp : out.python).push_back(e.path());
    }
  }
};

}  // namespace

bool is_skipped_folder(const std::string& name) {
  static const std::set<std::string> skipped = {
      "build", "_build", "builds", "dist", "node_modules", "__pycache__", "site-packages", "venv",
      "third_party", "third-party", "thirdparty", "3rdparty", "external", "externals", "extern", "vendor",
      "vendored"};
  const auto ends_with = [&](const std::string& suffix) {
    return name.size() >= suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
  };
  return name.empty() || name[0] == '.' || skipped.count(name) > 0 || ends_with(".egg-info") ||
         name.rfind("cmake-build-", 0) == 0;
}

SourceFiles list_source_files(const fs::path& dir, const SourceLimits& limits) {
  SourceFiles out;
  Walk{limits, out}.folder(dir, 0);
  return out;
}

}  // namespace opmatrix
