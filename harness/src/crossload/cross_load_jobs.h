// The cross-load spread over GitHub jobs (docs/github.md#the-load-matrix): one job per runtime
// cell, each loading every build (the cell jobs' builds, passed on as artifacts) into its own
// runtime with `opmatrix cross-load --runtime ID`; then one merge of their files into the one
// results/_cross-load.json a local run writes, so the published report has the same load table.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "matrix/model.h"

namespace opmatrix {

// `opmatrix github-matrix --cross-load`: {"include": [{id, runs_on, engine, builds}, …]}, one
// entry per runtime: each selected cell of our own kernels (a project's library is not
// cross-loaded) that runs in a container (a host cell's results are another engine's). `builds`:
// the cells whose builds it loads (all of them). Empty when fewer than two cells qualify: a
// local run cross-loads only from two cells on.
nlohmann::json cross_load_job_matrix(const std::vector<const Cell*>& selected);

// The files of the runtime jobs (each `_cross-load.json` of one runtime) as one: builds by
// (cell, abi, namespace, library hash) once, every runtime and pair, runtimes that could not
// run listed only where no job ran them, the prediction's agreement counted again over all
// pairs. Throws std::runtime_error naming the part that is not a cross-load file (`names`:
// the files, for that message) or whose engine differs.
nlohmann::json merge_cross_loads(const std::vector<nlohmann::json>& parts, const std::vector<std::string>& names);

}  // namespace opmatrix
