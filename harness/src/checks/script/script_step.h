// Script checks (checks/registry.h, ScriptCheck): a check that is its own step, an in-cell
// script under scripts/cell/ reporting its own results (script_judge.h says the form and the
// environment it gets). A new one is one module in this folder calling register_script_check
// at its foot, plus its script: the runner below runs every one the same way.
#pragma once

#include "checks/registry.h"

namespace opmatrix {

// Registers the step (run by the shared script-check runner) and its check at `order`.
void register_script_check(double order, StepSpec step, CheckSpec check);

}  // namespace opmatrix
