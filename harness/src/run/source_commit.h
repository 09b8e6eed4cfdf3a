// Which commit of the user's repository a run checked: recorded in every result so that a
// report's cell says what was built, next to the image it ran in.
#pragma once

#include <string>

namespace opmatrix {

// `git rev-parse HEAD` of the repository holding `folder`, with "+dirty" when tracked files
// differ from it; "" when `folder` is not in a git work tree or git is missing.
std::string source_commit(const std::string& folder);

}  // namespace opmatrix
