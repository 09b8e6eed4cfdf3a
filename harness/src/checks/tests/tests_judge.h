// Turns what scripts/cell/run_tests.py reports (a project's own test command, its JUnit XML read
// back) into `tests` results: each failing test a finding with its id, its message and a command
// that runs it alone; passing tests counted per op where their names name the op; tests that
// skip for want of a GPU said so, neither failures nor passes; test files pytest could not
// collect judged by collection_errors.h. A pure function, unit-tested.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "results/cell_result.h"

namespace opmatrix {

// The diagnosis kind of a suite that pytest collects nothing from, nothing broken (a folder of
// scripts): a limit of what was checked (report/verdict.cpp's limiting skips), not a red.
inline constexpr const char* kSuiteCollectedNothing = "suite_collected_nothing";

struct TestsContext {
  std::vector<std::string> ops;                              // the cell's ops, "ns::name"
  std::function<std::string(const std::string&)> repro_for;  // a test id -> the command that runs it alone
  std::string repro;                                         // the whole command
  std::string log;                                           // the step's log (evidence)
  double seconds = 0;
  // What the requirements step got (requirements.py's report; null where it did not run) and its
  // failed result, if it failed: where a module a test file lacks should have come from.
  nlohmann::json resolved;
  std::optional<CheckResult> requirements_failed;
};

std::vector<CheckResult> tests_results(const nlohmann::json& report, const TestsContext& ctx);

// The ops a test id names: each op whose name (after "ns::") stands in the test's own names as
// a word ('_' and punctuation separate words: test_batched_nms), or begins one of them once a
// leading "test" and the '_' are dropped (TestMyAddOut, test_mymuladd_grad); the longest where
// one name holds another.
std::vector<std::string> ops_named_by(const std::string& test_id, const std::vector<std::string>& ops);

// Whether a skip's reason says the test needs a GPU (CUDA, a device, a GPU).
bool skipped_for_gpu(const std::string& reason);

}  // namespace opmatrix
