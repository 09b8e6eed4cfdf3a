#pragma once

#include <string>

namespace opmatrix {

// Text for HTML and XML alike: & < > " ' as entities, and the control characters XML 1.0
// forbids (even escaped) as spaces.
std::string escape_markup(const std::string& s);

// Text for one Markdown table cell: pipes escaped, newlines as spaces.
std::string escape_md_cell(const std::string& s);

}  // namespace opmatrix
