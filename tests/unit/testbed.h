// What many unit tests build the same way: a cell (set field by field: Cell may grow fields)
// and a check's result, so that a test names only the values it is about; and one field of a
// list's elements, a list a test compares whole.
#pragma once

#include <string>
#include <vector>

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

// One member of every element, in their order: `members_of(suite.requires,
// &TestRequirement::requirement)` is the suite's requirement names.
template <typename T, typename Member>
std::vector<Member> members_of(const std::vector<T>& items, Member T::*member) {
  std::vector<Member> out;
  for (const T& item : items) out.push_back(item.*member);
  return out;
}

}  // namespace opmatrix::testbed
