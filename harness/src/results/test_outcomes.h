// Turns what ran inside a cell (ctest's log + the files gtest and the cases' main wrote)
// into one outcome per gtest test, tagged with the op and check it stands for
// (docs/cell-contract.md).
//
// Each case binary is ONE ctest test (one process for all of its gtest tests). Per binary:
//   - gtest's JSON (<gtest_dir>/<binary>.json) gives every test's verdict, message, time and
//     OPMATRIX_CHECK tags;
//   - when the process died first (crash, timeout, exit), its console output in ctest's log
//     gives the tests it finished ("[ RUN ]" / "[ OK ]" / "[ FAILED ]" / "[ SKIPPED ]"); the
//     test that was running gets the binary's fate (crash or timeout), and the tests listed
//     in <gtest_dir>/<binary>.list (written by cases/common/test_main.cpp before the first
//     test) that never started are reported as not run, with the reason.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "results/status.h"

namespace opmatrix {

struct TestOutcome {
  std::string name;  // Suite.Test as gtest names it ("OpRegistration.Load/nms")
  std::string op;
  std::string check;
  Status status = Status::pass;
  std::string message;  // failure text, skip reason, or the signal
  double seconds = 0;
  std::string binary;  // the case binary (= its ctest test) that holds the test
};

// One ctest test: a whole case binary.
struct CtestRun {
  std::string name;     // the ctest test name (the binary's name)
  Status status = Status::pass;
  std::string verdict;  // ctest's word: "Passed", "Failed", "Exception: SegFault", "Timeout", "Not Run ..."
  double seconds = 0;
  std::string output;   // its console output (ctest prints it for tests that did not pass)
};

// ctest's verdicts and, for those that did not pass, their console output (--output-on-failure).
std::vector<CtestRun> parse_ctest_log(const std::string& log);

// Console output of one gtest process -> the tests it finished, plus the one it was running
// when it died (status `running_status`, message `running_message` + what it printed).
std::vector<TestOutcome> parse_gtest_console(const std::string& output, Status running_status,
                                             const std::string& running_message);

// Everything together: one outcome per gtest test of every binary ctest ran. Empty when no
// binary got as far as main() (then the test step's log says why: see diagnose_step).
std::vector<TestOutcome> collect_test_outcomes(const std::string& ctest_log, const std::string& gtest_dir);

// "NmsCorrectness" -> {"nms", "correctness"}; "DeformConv2dMeta" -> {"deform_conv2d", "meta"}.
std::pair<std::string, std::string> op_and_check_from_suite(const std::string& suite);

}  // namespace opmatrix
