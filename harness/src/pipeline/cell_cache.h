// Whether a cell's last result stands for this run: its cache key (its declaration, its image's
// tag, and the sources it checks) against the one its results file recorded.
#pragma once

#include <optional>
#include <string>

#include "pipeline/run_state.h"

namespace opmatrix {

// The job's cache key; "" for a job that does not run here.
std::string cache_key_of(const RunState& run, const RunJob& job);

// The cell's last result (marked cached) when it was made with `key` and says something about
// the cell; nullopt with --no-cache, for an empty key, for errors, timeouts and results that
// the infrastructure spoiled.
std::optional<CellResult> standing_result(const RunState& run, const Cell& cell, const std::string& key);

}  // namespace opmatrix
