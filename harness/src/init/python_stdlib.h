// Python's standard library by its top-level module names, so that `opmatrix init` proposes no
// test requirement for what every Python has (os, unittest, typing).
#pragma once

#include <string>

namespace opmatrix {

// Whether a top-level module name ("os", "unittest"; "" is none) is the standard library's.
bool is_stdlib_module(const std::string& top);

}  // namespace opmatrix
