// The `stable-abi` check: the LibTorch stable-ABI build of our kernels (docs/stable-abi.md):
// built where torch >= its target, refused at compile time below it, and taking nothing from
// libtorch but the C shim.
#include "checks/script/script_step.h"

namespace opmatrix {

namespace {

const bool kRegistered = (register_script_check(210, {"stable-abi", "stable_abi.py", "", 1800, StepWhen::own_kernels,
                              "builds libopmatrix_ops_stable.so (TORCH_TARGET_VERSION) and lists what it imports from "
                              "libtorch"},
                             {"stable-abi", {"stable-abi"}, "script_checks", CheckPer::cell,
                              "the stable-ABI build keeps its promise: it compiles against every torch from its target "
                              "on and fails to compile below it (subtest build), and it imports only the stable C shim "
                              "from libtorch, no C++ symbol (subtest imports)",
                              "#error \"TORCH_TARGET_VERSION is newer than the libtorch headers this build is compiling "
                              "against.\"",
                              {}, false, false, {"build", "imports"}, false, false, Weighs::limits}),
                          true);

}  // namespace

}  // namespace opmatrix
