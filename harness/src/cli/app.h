#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace opmatrix {

// Parses `args` (without the program name) and runs the chosen subcommand.
int run_cli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace opmatrix
