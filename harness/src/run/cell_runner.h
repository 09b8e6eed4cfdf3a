// Runs one cell from image to verdict, step by step in the check registry's order
// (checks/registry.h); then applies the cell's expectations and returns what
// results/<cell>.json records.
#pragma once

#include <functional>
#include <string>

#include "matrix/model.h"
#include "results/cell_result.h"
#include "run/engine.h"

namespace opmatrix {

struct RunSettings {
  std::string results_dir;  // absolute
  int build_jobs = 2;
  double per_test_timeout_s = 300;  // ctest --timeout; each step's own comes from the registry
};

using Progress = std::function<void(const std::string& cell, const std::string& line)>;

CellResult run_cell(const Matrix& matrix, const Cell& cell, Engine& engine, const RunSettings& settings,
                    const Progress& progress);

// A result for a cell that is not run here, with the reason.
CellResult skipped_cell(const Cell& cell, const std::string& reason);

// Applies `expect` entries and sets the cell's status and meets_expectations.
void apply_expectations(const Cell& cell, CellResult& result);


}  // namespace opmatrix
