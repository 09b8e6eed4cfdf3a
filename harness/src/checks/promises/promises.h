// What a library promises (matrix.yaml `promises:`, docs/matrix.md), applied to its results: a
// cell is broken only where the library breaks its own promise. Declared per op and as a whole;
// a CPU variant is also recognised without a declaration (cpu_only_by_design).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "matrix/model.h"
#include "results/cell_result.h"

namespace opmatrix {

// Why the library is CPU-only by design, or nullopt: declared (`promises: {backends: [cpu]}`), a
// CPU variant's name (fbgemm-gpu-cpu), or, for sources, no CUDA source at all in its folder (no
// .cu file, no CUDAExtension, no CUDA language in CMake), or a wheel whose extension registers no
// dispatcher ops (no namespace: torchrl's and tensordict's host-side helpers). Such a library in a CUDA runtime is
// judged as CPU-only: no "CUDA promised, built CPU-only", no missing CUDA kernels.
std::optional<std::string> cpu_only_by_design(const Project& p, const std::string& source_dir);

// Whether torch in the cell sees a GPU (of `arch` or newer; "" for any), by the probe's "gpus".
bool gpu_visible(const nlohmann::json& versions, const std::string& arch);

// Per-op promises over a cell's results (before the other rules): an op registered only where a
// GPU (of some generation) is visible, or only on some CPUs, is "not checked here" where that does
// not hold; a CUDA-only op's behaviour is not checked where no GPU runs it. `versions` is the
// probe's (its "gpus": the compute capabilities torch sees). `cpu_only_library`: the library is
// CPU-only by design, so a CUDA-only op has nothing to run in it (every red of it: not checked).
void apply_op_promises(const Project* p, const nlohmann::json& versions, std::vector<CheckResult>& checks,
                       bool cpu_only_library = false);

}  // namespace opmatrix
