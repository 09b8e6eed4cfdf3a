// Whether a cell's last result stands for this run: its cache key (its declaration, its image's
// tag, and the sources it checks) against the one its results file recorded.
#pragma once

#include <optional>
#include <string>

#include "pipeline/run_state.h"
#include "run/cache_key.h"

namespace opmatrix {

// The job's cache key and its parts; key "" for a job that does not run here.
CacheKey cache_key_of(const RunState& run, const RunJob& job);
// The same key with the image named by `image`, the tag the cell's image step ended with.
CacheKey cache_key_of(const RunState& run, const RunJob& job, const std::string& image);

// The cell's last result (marked cached) when it was made with `key` (or with any key, under
// --keep-measured) and says something about the cell; else nullopt, and why the cell runs
// (again): --no-cache, no result yet, an error, a timeout or an infrastructure failure last time,
// or which parts of its key changed ("" for an empty key: nothing is reused there).
struct Standing {
  std::optional<CellResult> result;
  std::string why_it_runs;
};
Standing standing_result(const RunState& run, const Cell& cell, const CacheKey& key);

}  // namespace opmatrix
