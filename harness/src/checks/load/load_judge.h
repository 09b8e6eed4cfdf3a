// The judge of the load step: turns what load_library.py reports into check results: `load`,
// and `registration`/`meta` by namespace. Pure functions of JSON, so the rules are unit-tested
// without a container.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "matrix/model.h"

#include "results/cell_result.h"

namespace opmatrix {

// One `load` check per library: loads with RTLD_NOW, or the undefined symbols (demangled)
// / missing libraries that stop it. `repro` is the command that shows it again.
std::vector<CheckResult> load_checks(const nlohmann::json& report, const std::string& repro);

// `registration` (CPU, plus CUDA when `expect_cuda`) and `meta` per op of the namespace. With
// `promises`, an op is expected to have only the backends its library promises for it (a
// CUDA-only op has no CPU kernel, a CPU variant no CUDA kernel, by design: no red, said so).
std::vector<CheckResult> namespace_checks(const nlohmann::json& report, const std::string& ns, bool expect_cuda,
                                          const std::string& repro, const Promises* promises = nullptr);

// The `load` check of importing the project's Python module as users do (`import:`): what it
// exposes, or its error diagnosed like a failed step's log (a torch too old for it, …).
CheckResult import_check(const nlohmann::json& import, const std::string& repro);

// A project with no dispatcher namespace (a pybind11-only extension): one `registration` skip
// saying so, with the functions its module exposes, instead of silence.
CheckResult not_a_dispatcher_library(const nlohmann::json& report, const std::string& repro);

// A short line for a failed load: "undefined symbol: at::foo(...) (+3 more)".
std::string load_failure_summary(const nlohmann::json& library);

}  // namespace opmatrix
