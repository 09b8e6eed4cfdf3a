// Runs `opmatrix ARGS...` in-process (run_cli), capturing its exit status, stdout and stderr.
#pragma once

#include <sstream>
#include <string>
#include <vector>

#include "cli/app.h"

namespace opmatrix {

struct CliRun {
  int status;
  std::string out;
  std::string err;
};

inline CliRun cli(const std::vector<std::string>& args) {
  std::ostringstream out, err;
  const int status = run_cli(args, out, err);
  return {status, out.str(), err.str()};
}

}  // namespace opmatrix
