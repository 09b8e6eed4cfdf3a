// A CheckResult for a test: op, check and status, the rest left as the caller sets it
// (CheckResult may grow fields). Shared by the tests of what reads results (report, verdict, diff).
#pragma once

#include <string>

#include "results/cell_result.h"

namespace opmatrix {

inline CheckResult check_result(const std::string& op, const std::string& check, Status status) {
  CheckResult c;
  c.op = op;
  c.check = check;
  c.status = status;
  return c;
}

}  // namespace opmatrix
