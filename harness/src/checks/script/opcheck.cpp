// The `opcheck` check: what an op's kernels DO under torch.library.opcheck (docs/checks.md,
// "Behaviour"), on the samples of scripts/cell/op_samples.py, each sub-test in its own
// process, so a crash in one keeps the others.
#include "checks/script/script_step.h"

namespace opmatrix {

namespace {

const bool kRegistered = (register_script_check(220, {"opcheck", "opcheck_check.py", "", 1200, StepWhen::built,
                              "runs torch.library.opcheck on every sample of every op (and torchvision's ops), each "
                              "sub-test on its own"},
                             {"opcheck", {"opcheck"}, "script_checks", CheckPer::op,
                              "each op's schema, autograd registration and fake (Meta) kernel agree with its real "
                              "kernel on every sample: torch.library.opcheck's test_schema, test_autograd_registration, "
                              "test_faketensor and test_aot_dispatch_dynamic, reported one by one",
                              "opcheck(op, ...): test_faketensor failed with ... found mismatched tensor metadata: "
                              "Shapes torch.Size([4]) and torch.Size([8]) are not equal!",
                              {}, true, false,
                              {"test_schema", "test_autograd_registration", "test_faketensor", "test_aot_dispatch_dynamic"},
                              true, true, Weighs::limits, {},
                              {"opcheck", "torch.library.opcheck's four sub-tests",
                               {"schema", "autograd registration", "fake tensor", "AOT dispatch"}, "under torch.library.opcheck"}}),
                          true);

}  // namespace

}  // namespace opmatrix
