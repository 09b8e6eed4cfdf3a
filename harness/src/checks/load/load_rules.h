// The load module's rules over a project cell's finished results (load_rules.cpp says why).
#pragma once

#include <vector>

#include "matrix/model.h"
#include "results/cell_result.h"

namespace opmatrix {

// Where a library does not load (or the module does not import), every op-level red that follows
// from it becomes a skip: "not checked: the library does not load here (see load: ...)".
void one_cause_one_fix(const Project* project, std::vector<CheckResult>& checks);

// Where an op's fake kernel ran (CheckSpec::fake_kernel_subtests), that decides its `meta` result.
void behaviour_over_presence(const Project* project, std::vector<CheckResult>& checks);

}  // namespace opmatrix
