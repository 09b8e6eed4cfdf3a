// The judge of every script check (checks/registry.h, ScriptCheck): the in-cell script
// reports its check results itself, in one JSON object on stdout:
//   {"checks": [{"check": "<its registry name>", "op": "", "arch": "", "subtest": "", "sample": "",
//                "status": "pass|fail|skip|error",
//                "message": "...", "diagnosis": {"kind": "...", "summary": "...", "fix": "...", "evidence": "..."}}]}
// It is run as `python.sh scripts/cell/<script> LIBRARY...` (every library the build made, as
// the cell sees them) with OPMATRIX_NAMESPACE, OPMATRIX_OPS (comma-separated),
// OPMATRIX_CUDA_ARCHS (comma-separated), OPMATRIX_EXPECT_CUDA (0|1), OPMATRIX_BUILD (the build
// folder), OPMATRIX_BUILD_JOBS (compile jobs), OPMATRIX_PROJECT_DIR (a project's folder, else empty), OPMATRIX_IMPORT (a project's
// `import:` module, else empty) and OPMATRIX_SAMPLES (the samples file the behaviour checks run:
// a project's `samples:`, cases/samples.py for opmatrix's kernels, else empty) in its environment.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "results/cell_result.h"

namespace opmatrix {

// The kind of a behaviour check's result that a requirement of the project breaking torch's own
// machinery made (op_samples.py's requirement_fault_result): no op's finding.
inline constexpr const char* kRequirementBreaksTorch = "requirement_breaks_torch";

// The script's results as check results: only its own check name, only known statuses; every
// result that is not a pass or skip carries a diagnosis (the script's, or one made from its
// message), each with `repro`. A malformed report is one `error` result saying what is wrong.
// A requirement that breaks torch's own machinery is red once in the cell: at the first op of the
// first check that meets it; `earlier` (the cell's results so far) says where it already is.
std::vector<CheckResult> script_checks(const nlohmann::json& report, const std::string& check, const std::string& repro,
                                       const std::vector<CheckResult>& earlier = {});

}  // namespace opmatrix
