// bench/rekey_results.cpp: for the warm no-op of the WHOLE local matrix without running every
// cell cold first. Copies each cell's results/<cell>.json into OUT_DIR with its cache key set
// to the key the harness computes now (same functions as `opmatrix run`), so that
// `opmatrix run --results OUT_DIR` finds every runnable cell `cached` and what is timed is the
// harness's own warm path (matrix load, source hashing, image tags, results reading).
// Build: see bench/run-bench.sh (links build/.../libopmatrix_core.a).
#include <filesystem>
#include <fstream>
#include <iostream>

#include <nlohmann/json.hpp>

#include "matrix/load.h"
#include "run/cache_key.h"
#include "util/data_root.h"
#include "engine/engine.h"
#include "util/atomic_write.h"

namespace fs = std::filesystem;
using namespace opmatrix;

int main(int argc, char** argv) {
  if (argc != 5) {
    std::cerr << "usage: rekey_results MATRIX RESULTS_DIR WORK_DIR OUT_DIR\n";
    return 2;
  }
  const std::string matrix = fs::absolute(argv[1]).string(), results = argv[2], work = argv[3], out = argv[4];
  LoadResult loaded = load_matrix_file(matrix);
  if (!loaded.matrix) return 2;
  EngineConfig config;
  config.kind = "podman";
  config.repo_root = fs::path(matrix).parent_path().string();
  config.work_dir = fs::absolute(work).string();
  auto engine = make_engine(config);
  const SourceParts sources = source_parts(config.repo_root, data_root());
  fs::create_directories(out);
  int n = 0;
  for (const auto& cell : loaded.matrix->cells) {
    nlohmann::json j = nlohmann::json::parse(read_text_file(results + "/" + cell.id + ".json"), nullptr, false);
    if (!j.is_object()) continue;
    SourceParts cell_sources = sources;
    if (cell.project) cell_sources.emplace_back("the project's folder", tree_hash(config.repo_root, {cell.project->path}));
    const CacheKey key = cell_cache_key(cell, engine->planned_image(cell), cell_sources);
    j["cache_key"] = key.key;
    j["cache_key_parts"] = key.parts;
    std::ofstream(out + "/" + cell.id + ".json") << j.dump(2) << "\n";
    ++n;
  }
  std::cout << n << "\n";
  return 0;
}
