// Script checks (checks/registry.h, ScriptCheck): a check that is its own step, an in-cell
// script under scripts/cell/ reporting its own results (script_judge.h says the form and the
// environment it gets). A new one is its declaration in this folder (NAME.yaml: its step,
// its check, its report cells; script_declaration.h), registered with the others by
// script_step.cpp, plus its script: the runner there runs every one the same way.
#pragma once

#include "checks/registry.h"

namespace opmatrix {

// Registers the step (run by the shared script-check runner) and its check at `order`: for a
// script check declared in code rather than in a declaration file.
void register_script_check(double order, StepSpec step, CheckSpec check);

}  // namespace opmatrix
