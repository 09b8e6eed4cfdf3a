// The four report formats, each rendered from results files only.
#pragma once

#include <string>

#include "report/results_set.h"

namespace opmatrix {

// README / $GITHUB_STEP_SUMMARY. Table entries link to "DETAILS_PAGE#cell-ID": "" when the
// cells' sections are on the same page, a path when the table is shown elsewhere (README).
std::string render_markdown(const ResultsSet& set, const std::string& details_page = "");
// The compatibility table alone, with its legend ("" when no cell of ours is in the set).
std::string compat_table_markdown(const ResultsSet& set, const std::string& details_page,
                                  const std::string& subject = "");
// The log of the step a check's result comes from (relative to the results folder), "" if none.
std::string log_of(const CellResult& r, const CheckResult& c);
// The id of a cell's section in the Markdown and HTML reports: "cell-ID".
std::string cell_anchor(const CellResult& r);
// What the verdict symbols mean, under every compatibility table.
inline constexpr const char* kVerdictLegend =
    "✔ works · ◐ works with limits (named: an arch it has no code for, a PyTorch tool an op fails under, "
    "kernels not executed here) · ✘ broken (why) · ○ not run here · ‼ not as declared in matrix.yaml. "
    "Each entry links to its cell's details.";
std::string render_html(const ResultsSet& set);      // one self-contained page
std::string render_junit(const ResultsSet& set);     // one testsuite per cell, one testcase per op x check
std::string render_json(const ResultsSet& set);      // merged results, schema opmatrix-report/1

// The label of a check in tables: "nms · correctness", "arch 9.0", "build".
std::string check_label(const CheckResult& c);
// A result's check with its sub-test, without op or arch: "compile", "opcheck test_faketensor".
std::string check_and_subtest(const CheckResult& c);

}  // namespace opmatrix
