// Building check results and diagnoses in one line: what every judge does.
#pragma once

#include <string>
#include <utility>

#include "results/cell_result.h"

namespace opmatrix {

inline CheckResult make_check(const std::string& op, const std::string& check, const std::string& arch, Status s,
                        std::string message) {
  CheckResult c;
  c.op = op;
  c.check = check;
  c.arch = arch;
  c.status = s;
  c.message = std::move(message);
  return c;
}

inline Diagnosis make_diagnosis(std::string kind, std::string summary, std::string fix, std::string repro,
                           std::string evidence = "") {
  return {std::move(kind), std::move(summary), std::move(fix), std::move(repro), std::move(evidence)};
}

}  // namespace opmatrix
