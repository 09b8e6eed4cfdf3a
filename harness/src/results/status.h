// The statuses (docs/results.md): what a check, a step or a whole cell came to.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace opmatrix {

enum class Status { pass, fail, skip, xfail, xpass, error, timeout, crash };

const char* to_string(Status s);
std::optional<Status> status_from_string(const std::string& s);

// Statuses that are a problem with the op or the cell (as opposed to pass/skip/xfail).
bool is_bad(Status s);

// The status of several results together: the worst one wins
// (crash > timeout > error > fail > xpass > xfail > pass > skip).
Status worst_of(const std::vector<Status>& statuses);

}  // namespace opmatrix
