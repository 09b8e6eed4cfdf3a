// Turns what scripts/cell/install_plan.py reports into the `install-plan` check of an atlas pair:
// what `pip install NAME==VERSION` does next to the cell's torch. Installing as it is passes;
// replacing torch (or another torch-family package) is a limit naming each from -> to (the
// release works here only installed without its dependencies, as the atlas installs it); no
// wheel for the cell's Python or platform fails. A pure function of JSON (unit-tested).
#pragma once

#include <nlohmann/json.hpp>

#include "checks/step_evidence.h"
#include "results/cell_result.h"

namespace opmatrix {

struct InstallPlanContext : StepEvidence {
  bool timed_out = false;
  int exit_code = 0;
};

CheckResult install_plan_check(const nlohmann::json& report, const InstallPlanContext& ctx);

}  // namespace opmatrix
