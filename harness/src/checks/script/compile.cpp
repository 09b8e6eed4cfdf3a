// The `compile` check: torch.compile(fullgraph=True) of a module calling each op, on its first
// CPU sample, against eager.
#include "checks/script/script_step.h"

namespace opmatrix {

namespace {

const bool kRegistered = (register_script_check(230, {"compile", "compile_check.py", "", 1800, StepWhen::built,
                              "torch.compile(fullgraph=True) of a module calling each op, on its first CPU sample, "
                              "against eager"},
                             {"compile", {"compile"}, "script_checks", CheckPer::op,
                              "each op compiles under torch.compile(fullgraph=True) (Dynamo + Inductor) without a "
                              "graph break, and the compiled module agrees with eager",
                              "torch._dynamo.exc.Unsupported: ... no fake impl registered (scatter fails when using "
                              "torch.compile)",
                              {}, true, false, {}, false, true, Weighs::limits, {},
                              {"compile", "torch.compile(fullgraph=True) against eager", {}}}),
                          true);

}  // namespace

}  // namespace opmatrix
