// A script check's declaration (checks/script/NAME.yaml): its step, its check, how the report
// shows it, and its place in the run. Data, not code: every script check runs the same way
// (script_step.cpp), so what tells one from another is these fields alone.
#pragma once

#include <optional>
#include <string>

#include "checks/registry.h"
#include "matrix/diagnostic.h"

namespace opmatrix {

struct ScriptCheckDeclaration {
  double order = 0;
  ScriptCheck declared;
};

// Reads one declaration; nullopt with every error (FILE:LINE:COL) in `diag` when it is not one.
std::optional<ScriptCheckDeclaration> parse_script_check(const std::string& text, Diagnostics& diag);

}  // namespace opmatrix
