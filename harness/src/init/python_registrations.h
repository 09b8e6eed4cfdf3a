// Dispatcher ops a Python source file defines: torch.library.define("ns::name(...)") (or
// define("ns::name", "(...) -> ...")), and torch.library.custom_op / triton_op("ns::name"),
// called or used as a decorator, however torch.library was imported.
#pragma once

#include <string>

#include "init/op_registration.h"

namespace opmatrix {

SourceRegistrations find_python_registrations(const std::string& text);

}  // namespace opmatrix
