// The four report formats, each rendered from results files only.
#pragma once

#include <string>

#include "report/results_set.h"

namespace opmatrix {

std::string render_markdown(const ResultsSet& set);  // README / $GITHUB_STEP_SUMMARY
std::string render_html(const ResultsSet& set);      // one self-contained page
std::string render_junit(const ResultsSet& set);     // one testsuite per cell, one testcase per op x check
std::string render_json(const ResultsSet& set);      // merged results, schema opmatrix-report/1

// The label of a check in tables: "nms · correctness", "arch 9.0", "build".
std::string check_label(const CheckResult& c);

}  // namespace opmatrix
