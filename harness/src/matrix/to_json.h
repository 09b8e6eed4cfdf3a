// The expanded cells as JSON, for `opmatrix list --json` and `opmatrix github-matrix`.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "matrix/model.h"

namespace opmatrix {

nlohmann::json cell_to_json(const Cell& cell);

// One entry of GitHub Actions' `strategy.matrix.include`: what a job needs to run the cell.
nlohmann::json github_job_entry(const Cell& cell);

}  // namespace opmatrix
