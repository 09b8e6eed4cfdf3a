// The `abi3` check: a wheel claiming CPython's stable ABI must be usable by every Python
// from its floor on (docs/stable-abi.md).
#include "checks/script/script_step.h"

namespace opmatrix {

namespace {

const bool kRegistered = (register_script_check(270, {"abi3", "limited_api.py", "", 120, StepWhen::built,
                              "reads an abi3 wheel's tag, its modules' names and what its native libraries link"},
                             {"abi3", {"abi3"}, "script_checks", CheckPer::library,
                              "a wheel that claims CPython's limited API (an abi3 tag, or py_limited_api modules) keeps "
                              "it: tag and module names agree (subtest tag), no native library links libtorch_python "
                              "or holds pybind11 (subtest links)",
                              "ImportError: dynamic module does not define module export function (PyInit__C) / "
                              "undefined symbol: _PyObject_… in another Python",
                              {}, true, false, {"tag", "links"}, false, false, Weighs::limits}),
                          true);

}  // namespace

}  // namespace opmatrix
