// A Diff for people (Markdown: a GitHub step summary or a pull-request comment) and for
// machines (JSON, schema opmatrix-diff/1). `base` and `head` label the two sides (their paths).
#pragma once

#include <string>

#include "diff/results_diff.h"

namespace opmatrix {

// "2 regressed, 1 fixed, 3 changed, cells +1 −0", or "no differences".
std::string diff_summary(const Diff& d);

std::string render_diff_markdown(const Diff& d, const std::string& base, const std::string& head);
std::string render_diff_json(const Diff& d, const std::string& base, const std::string& head);

}  // namespace opmatrix
