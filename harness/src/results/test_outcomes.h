// Turns what ran inside a cell (ctest's log + gtest's JSON files) into one outcome per test,
// tagged with the op and check it stands for (docs/cell-contract.md).
#pragma once

#include <string>
#include <vector>

#include "results/status.h"

namespace opmatrix {

struct TestOutcome {
  std::string name;  // Suite.Test as ctest knows it
  std::string op;
  std::string check;
  Status status = Status::pass;
  std::string message;  // failure text, skip reason, or the signal
  double seconds = 0;
};

// ctest's own verdicts from its console log: the only source for tests that crashed or
// timed out before gtest could write JSON.
std::vector<TestOutcome> parse_ctest_log(const std::string& log);

// Fills op/check/message from gtest JSON files in `gtest_dir` (and the suite name when a
// test left no JSON).
void annotate_from_gtest_json(std::vector<TestOutcome>& outcomes, const std::string& gtest_dir);

// "NmsCorrectness" -> {"nms", "correctness"}; "DeformConv2dMeta" -> {"deform_conv2d", "meta"}.
std::pair<std::string, std::string> op_and_check_from_suite(const std::string& suite);

}  // namespace opmatrix
