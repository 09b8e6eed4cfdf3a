// The "extension built for one torch, run with another" failure, measured: the op library
// built in cell A is loaded (dlopen RTLD_NOW + registration) in the runtime of cell B, for
// every pair of cells with results here. Writes results/_cross-load.json (docs/results.md).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "matrix/model.h"
#include "run/cell_runner.h"
#include "engine/engine.h"

namespace opmatrix {

constexpr const char* kCrossLoadFile = "_cross-load.json";  // "_": never a cell id
constexpr int kCrossLoadSchemaVersion = 2;

// A cross-load file with no builds, runtimes or pairs yet (docs/results.md).
nlohmann::json empty_cross_load_file(const std::string& engine);

struct CrossLoadSettings {
  std::string results_dir;  // absolute
  double timeout_s = 1800;  // per runtime (one container loads every build)
  bool no_cache = false;
  // Only these cells are runtimes ("" = every cell whose image is here): one GitHub job per
  // runtime (crossload/cross_load_jobs.h). The others' builds and upstream subjects still count.
  std::vector<std::string> runtimes;
  // Only copy the runtimes' upstream subjects (torchvision's _C_stable.so) out of their images
  // into their build folders, where a cell job's build artifact takes them along; load nothing.
  bool subjects_only = false;
};

// Runs what is not cached, writes the file atomically and returns its JSON. Cells need a
// results file that shows a build (to be a build) or a probe (to be a runtime).
nlohmann::json run_cross_load(const Matrix& matrix, Engine& engine, const CrossLoadSettings& settings,
                              const Progress& progress);

// One pair's outcome from cross_load.py's entry for it: outcome (loads | not_registered |
// undefined_symbol | missing_library | crash | timeout | error), summary, symbols.
nlohmann::json cross_load_outcome(const nlohmann::json& entry);

// Whether a runtime's own correctness binaries can judge foreign libraries: a cell of our
// kernels that built and whose `test` step passed (or failed only as declared).
bool runtime_has_cases(const Cell& cell, const CellResult& result);

}  // namespace opmatrix
