#include "run/cache_key.h"

#include <algorithm>
#include <filesystem>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "checks/registry.h"
#include "matrix/to_json.h"
#include "util/atomic_write.h"
#include "util/hash.h"
#include "version.h"

namespace fs = std::filesystem;

namespace opmatrix {

SourceParts source_parts(const std::string& repo_root, const std::string& data_root) {
  return {{"kernels/ and cases/", tree_hash(repo_root, {"kernels", "cases"})},
          {"opmatrix's scripts/cell", tree_hash(data_root, {"scripts/cell"})}};
}

bool is_generated_folder(const std::string& name) {
  static const char* const kNames[] = {".git", "build", "dist", "__pycache__", ".opmatrix", ".eggs"};
  for (const char* n : kNames)
    if (name == n) return true;
  return name.size() > 9 && name.compare(name.size() - 9, 9, ".egg-info") == 0;
}

std::string tree_hash(const std::string& repo_root, const std::vector<std::string>& dirs,
                      const std::vector<std::string>& skip) {
  std::vector<std::string> files;
  auto skipped = [&](const fs::path& p) {
    if (is_generated_folder(p.filename().string())) return true;
    std::error_code ec;
    for (const auto& s : skip)
      if (fs::equivalent(p, s, ec)) return true;
    return false;
  };
  for (const auto& dir : dirs) {
    std::error_code ec;
    for (auto it = fs::recursive_directory_iterator(fs::path(repo_root) / dir, ec);
         !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
      if (it->is_directory(ec) && skipped(it->path())) it.disable_recursion_pending();
      else if (it->is_regular_file(ec)) files.push_back(it->path().string());
    }
  }
  std::sort(files.begin(), files.end());
  Fnv64 h;
  for (const auto& f : files) h.add(f.substr(repo_root.size())).add(read_text_file(f));
  return h.hex();
}

namespace {

// The parts whose values people read as they are; the others are hashes, named only.
bool shown_with_value(const std::string& part) { return part == "opmatrix version" || part == "image"; }

}  // namespace

CacheKey cell_cache_key(const Cell& cell, const std::string& image, const SourceParts& sources) {
  CacheKey k;
  if (image.empty()) return k;
  // The registry decides which checks run and how they are judged: a changed one is a new result.
  // How the report weighs a result (weighs, unexecuted) and which results the cache keeps
  // (infrastructure_kinds) change no result: left out.
  nlohmann::json registry = registry_json();
  for (auto& check : registry["checks"]) {
    check.erase("weighs");
    check.erase("unexecuted");
    check.erase("infrastructure_kinds");
  }
  const std::string registry_text = registry.dump(), declaration = cell_to_json(cell).dump();
  std::string source_text;
  for (const auto& [name, hash] : sources) source_text += hash;
  k.key = Fnv64()
              .add("opmatrix-cache-v1")
              .add(kOpmatrixVersion)
              .add(registry_text)
              .add(declaration)
              .add(image)
              .add(source_text)
              .hex();
  k.parts = {{"opmatrix version", kOpmatrixVersion},
             {"check registry", Fnv64().add(registry_text).hex()},
             {"the cell's declaration", Fnv64().add(declaration).hex()},
             {"image", image}};
  for (const auto& [name, hash] : sources) k.parts[name] = Fnv64().add(hash).hex();
  return k;
}

std::string changed_parts(const nlohmann::json& before, const nlohmann::json& now) {
  std::vector<std::string> changed;
  for (const auto& [name, value] : now.items()) {
    const auto was = before.find(name);
    if (was != before.end() && *was == value) continue;
    if (was == before.end()) changed.push_back(name + " (new)");
    else if (shown_with_value(name)) changed.push_back(fmt::format("{} ({} -> {})", name, was->get<std::string>(),
                                                                   value.get<std::string>()));
    else changed.push_back(name);
  }
  for (const auto& [name, value] : before.items())
    if (!now.contains(name)) changed.push_back(name + " (gone)");
  return fmt::format("{}", fmt::join(changed, ", "));
}

}  // namespace opmatrix
