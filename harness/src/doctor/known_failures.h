// The failures users report, each judged against what doctor found here. Internal to doctor/.
#pragma once

#include <vector>

#include <nlohmann/json.hpp>

#include "doctor/doctor.h"
#include "doctor/facts.h"

namespace opmatrix::doctor {

// One finding per known failure, in the order the text lists them.
std::vector<DoctorFinding> findings_from(const nlohmann::json& env, const Facts& f,
                                         const std::vector<CheckResult>& checks);

}  // namespace opmatrix::doctor
