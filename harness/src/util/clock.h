// Wall-clock timestamps for results files.
#pragma once

#include <string>

namespace opmatrix {

// Now, UTC, ISO 8601 to the second: "2026-11-22T07:26:10Z".
std::string now_iso8601();

}  // namespace opmatrix
