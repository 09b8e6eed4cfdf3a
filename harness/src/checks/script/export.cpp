// The `export` check: torch.export.export of a module calling each op, then the exported
// program run against eager.
#include "checks/script/script_step.h"

namespace opmatrix {

namespace {

const bool kRegistered = (register_script_check(240, {"export", "export_check.py", "", 1200, StepWhen::built,
                              "torch.export.export of a module calling each op, then the exported program run against "
                              "eager"},
                             {"export", {"export"}, "script_checks", CheckPer::op,
                              "each op exports with torch.export.export and the exported program agrees with eager",
                              "torch._dynamo.exc.Unsupported / RuntimeError: ... cannot be exported (no fake impl, "
                              "data-dependent shape)",
                              {}, true, false, {}, false, true, Weighs::limits, {},
                              {"export", "torch.export against eager", {}}}),
                          true);

}  // namespace

}  // namespace opmatrix
