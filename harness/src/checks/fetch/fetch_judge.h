// Turns what scripts/cell/fetch_pypi.py reports into the `fetch` check of a pypi:/wheel:
// project: the file and its sha256, or the reason PyPI has none for this cell, with the fix.
// A pure function of JSON, so the rules are unit-tested without a container or network.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "checks/step_evidence.h"
#include "results/cell_result.h"

namespace opmatrix {

struct FetchContext : StepEvidence {
  std::string downloads_dir;  // the host folder the files are kept in (named in fixes)
  bool timed_out = false;
  int exit_code = 0;
};

// `report` is the script's JSON (discarded when it printed none). Network failures are the
// run's (error), every other failure the library's or the cell's (fail).
CheckResult fetch_check(const nlohmann::json& report, const FetchContext& ctx);

// What to do about a fetch failure of `kind` (fetch_pypi.py's error kinds).
std::string fetch_fix(const std::string& kind, const std::string& downloads_dir);

}  // namespace opmatrix
