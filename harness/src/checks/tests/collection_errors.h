// The test files of a library's suite that pytest could not collect (run_tests.py's
// "collection_errors": a file that fails at import), judged. A file that lacks a module nothing
// the project requires provides (its modules import OpenCV, which its setup.py leaves to its
// users) is no break of the library but a limit of the matrix: ONE finding per module, naming
// the distribution to add to test_requires (util/python_distributions) and the files that need
// it. A module the requirements provide, or the library's or the suite's own, and any other
// import error, stay reds, one per cause. Where a module should have come from is the
// requirements module's one rule (checks/requirements/missing_module.h).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "checks/tests/tests_judge.h"
#include "results/cell_result.h"

namespace opmatrix {

struct NotCollected {
  int files = 0;                     // test files pytest could not import
  int broken_files = 0;              // of them, those whose cause is a red
  std::vector<std::string> missing;  // the modules the matrix does not install, in the order found
};

struct CollectionJudgement {
  std::vector<CheckResult> results;
  NotCollected not_collected;
};

// The diagnosis kind of a module the matrix does not install: a skip the verdict names as a limit
// (report/verdict.cpp's limiting skips).
inline constexpr const char* kSuiteNeedsModule = "suite_needs_module";

CollectionJudgement judge_collection_errors(const nlohmann::json& errors, const TestsContext& ctx);

// For the suite's summary: "8 test files not collected: the suite needs cv2, scipy, onnx, which
// the matrix does not install"; "" when every file was collected.
std::string not_collected_clause(const NotCollected& n);

}  // namespace opmatrix
