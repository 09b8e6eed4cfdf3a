// The `cxx11_abi` check: each built library calls torch's C++ API with the std::string ABI
// (_GLIBCXX_USE_CXX11_ABI) this torch was built with; the other one is an "undefined symbol"
// at import whose cause the load check cannot name.
#include "checks/script/script_step.h"

namespace opmatrix {

namespace {

const bool kRegistered = (register_script_check(205, {"cxx11-abi", "cxx11_abi.py", "", 120, StepWhen::built,
                              "reads the std::string ABI each built library calls torch with (nm -D -C)"},
                             {"cxx11_abi", {"cxx11-abi"}, "script_checks", CheckPer::library,
                              "each built library calls torch's C++ API with the std::string ABI this torch was built "
                              "with (_GLIBCXX_USE_CXX11_ABI), one result per library",
                              "ImportError: ...so: undefined symbol: _ZN3c106detail14torchCheckFailEPKcS2_jRKSs",
                              {}}),
                          true);

}  // namespace

}  // namespace opmatrix
