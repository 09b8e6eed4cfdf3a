#include "results/status.h"

#include <algorithm>

namespace opmatrix {

namespace {
const char* const kNames[] = {"pass", "fail", "skip", "xfail", "xpass", "error", "timeout", "crash"};

int severity(Status s) {
  switch (s) {
    case Status::skip: return 0;
    case Status::pass: return 1;
    case Status::xfail: return 2;
    case Status::xpass: return 3;
    case Status::fail: return 4;
    case Status::error: return 5;
    case Status::timeout: return 6;
    case Status::crash: return 7;
  }
  return 0;
}
}  // namespace

const char* to_string(Status s) { return kNames[static_cast<int>(s)]; }

std::optional<Status> status_from_string(const std::string& s) {
  for (int i = 0; i < 8; ++i)
    if (s == kNames[i]) return static_cast<Status>(i);
  return std::nullopt;
}

bool is_bad(Status s) { return severity(s) >= severity(Status::xpass); }

Status worst_of(const std::vector<Status>& statuses) {
  Status worst = Status::skip;
  for (Status s : statuses)
    if (severity(s) > severity(worst)) worst = s;
  return worst;
}

}  // namespace opmatrix
