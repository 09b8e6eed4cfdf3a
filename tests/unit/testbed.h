// What many unit tests build the same way: a cell (set field by field: Cell may grow fields)
// and a check's result, so that a test names only the values it is about.
#pragma once

#include <string>

#include "matrix/model.h"
#include "results/cell_result.h"

namespace opmatrix::testbed {

inline Cell cell(const std::string& id, const std::string& torch, const std::string& torchvision,
                 const std::string& cuda) {
  Cell c;
  c.id = id;
  c.torch = torch;
  c.torchvision = torchvision;
  c.cuda = cuda;
  return c;
}

inline CheckResult check_result(const std::string& check, Status s, const std::string& op = "",
                                const std::string& arch = "", const std::string& message = "") {
  return CheckResult{op, check, arch, s, message};  // CheckResult's first fields, in their order
}

}  // namespace opmatrix::testbed
