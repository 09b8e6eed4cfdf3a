// A requirement that is a placeholder on PyPI fetching its real wheel from another index (NVIDIA's
// wheel-stub: tensorrt-cu13-libs from pypi.nvidia.com), where the run reaches PyPI alone
// (scripts/cell/requirements.py, index_elsewhere). The run could not check it, the library is
// not at fault: an infrastructure kind of the install-plan and requirements checks, so the pair
// reads "not checked" where nothing else breaks it, and is never cached.
#pragma once

#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "util/json_fields.h"

namespace opmatrix {

inline constexpr const char* kIndexElsewhere = "index_elsewhere";

// The fix: a run that reaches that index, with the command that shows it.
inline std::string index_elsewhere_fix(const nlohmann::json& failed) {
  return fmt::format("run where {0} is reachable (a GitHub runner reaches it); by hand: pip install "
                     "--extra-index-url {0} {1}=={2}",
                     json_text(failed, "index"), json_text(failed, "package"), json_text(failed, "version"));
}

// The kinds of a pip step's failure that are the run's, not the library's (an error, never a verdict).
inline bool pip_infrastructure(const std::string& kind) {
  return kind == "network" || kind == "internal" || kind == kIndexElsewhere;
}

}  // namespace opmatrix
