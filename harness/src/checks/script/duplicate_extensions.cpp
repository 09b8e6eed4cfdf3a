// The `duplicate_extension` check: one Python extension module built twice in one folder
// under different suffixes, where the stale one may be the one imported.
#include "checks/script/script_step.h"

namespace opmatrix {

namespace {

const bool kRegistered = (register_script_check(200, {"duplicate-extensions", "duplicate_extensions.py", "", 120, StepWhen::built,
                              "looks for one Python extension module built twice in one folder"},
                             {"duplicate_extension", {"duplicate-extensions"}, "script_checks", CheckPer::library,
                              "no extension module sits twice in one folder under different suffixes "
                              "(_C.cpython-310-*.so next to _C.abi3.so), where the stale one may be the one imported",
                              "ImportError: ..._C.cpython-310-x86_64-linux-gnu.so: undefined symbol (a stale build "
                              "imported instead of _C.abi3.so)",
                              {}}),
                          true);

}  // namespace

}  // namespace opmatrix
