// A CheckResult for a test, set field by field (CheckResult may grow fields); the rest is left
// as the caller sets it. Shared by the tests of what reads results (report, verdict, diff).
#pragma once

#include <string>
#include <tuple>

#include "results/cell_result.h"

namespace opmatrix {

inline CheckResult check_result(const std::string& op, const std::string& check, Status status,
                                const std::string& message = "", const std::string& subtest = "",
                                const std::string& arch = "") {
  CheckResult c;
  std::tie(c.op, c.check, c.status, c.message, c.subtest, c.arch) = std::tie(op, check, status, message, subtest, arch);
  return c;
}

}  // namespace opmatrix
