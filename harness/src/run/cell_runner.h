// Runs one cell from image to verdict, step by step in the check registry's order
// (checks/registry.h); then applies the cell's expectations and returns what
// results/<cell>.json records.
#pragma once

#include <functional>
#include <string>

#include "matrix/model.h"
#include "results/cell_result.h"
#include "engine/engine.h"

namespace opmatrix {

struct RunSettings {
  std::string results_dir;  // absolute
  int build_jobs = 2;
  double per_test_timeout_s = 300;  // ctest --timeout; each step's own comes from the registry
  // The run's look-ahead (images/image_prefetch.h) began this cell's image before the cell
  // started: its image log is this run's, so it stays when the cell clears its log folder,
  // and the progress ticker reads it from the start.
  bool image_log_from_look_ahead = false;
};

// results/logs/<cell>/<step>.log: where a cell's step writes its log (absolute).
std::string step_log_path(const std::string& results_dir, const std::string& cell_id, const std::string& step);

// A step's time limit in a cell: the cell's own (`timeouts:` in the matrix), else the registry's.
double step_timeout(const Cell& cell, const std::string& step);

using Progress = std::function<void(const std::string& cell, const std::string& line)>;

CellResult run_cell(const Matrix& matrix, const Cell& cell, Engine& engine, const RunSettings& settings,
                    const Progress& progress);

// A result for a cell that is not run here, with the reason.
CellResult skipped_cell(const Cell& cell, const std::string& reason);

// Applies `expect` entries and sets the cell's status and meets_expectations.
void apply_expectations(const Cell& cell, CellResult& result);


}  // namespace opmatrix
