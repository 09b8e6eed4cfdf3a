// Dispatcher ops a C++/CUDA source file registers: TORCH_LIBRARY / TORCH_LIBRARY_FRAGMENT /
// STABLE_TORCH_LIBRARY blocks and their def(...) calls, and the older
// torch::RegisterOperators().op("ns::name", ...) chains (torch-scatter, torch-sparse).
#pragma once

#include <string>

#include "init/op_registration.h"

namespace opmatrix {

SourceRegistrations find_cpp_registrations(const std::string& text);

}  // namespace opmatrix
