// The `wheel` check: the wheel a setup.py project builds accepts the cell's own torch
// (Requires-Dist) and says which platform it is for.
#include "checks/script/script_step.h"

namespace opmatrix {

namespace {

const bool kRegistered = (register_script_check(260, {"wheel", "wheel_metadata.py", "", 120, StepWhen::built,
                              "reads the tags and the torch requirement of the wheel a setup.py project built"},
                             {"wheel", {"wheel"}, "script_checks", CheckPer::library,
                              "the wheel a setup.py project builds accepts the cell's own torch (Requires-Dist) and "
                              "says which platform it is for",
                              "ERROR: Cannot install mylib because these package versions have conflicting "
                              "dependencies (torch>=2.4 vs 2.1.2)",
                              {}}),
                          true);

}  // namespace

}  // namespace opmatrix
