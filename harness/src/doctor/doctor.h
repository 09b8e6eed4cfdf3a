// `opmatrix doctor`: what this environment is (torch, torchvision, nvcc, GPU) and which of
// the failures users report apply here, each with its fix in one line.
//
// It gathers its facts with the same in-cell scripts as `opmatrix run` (scripts/cell: probe.py,
// torchvision_registrations.py + dispatcher.py, nvrtc_probe.py; embedded in the binary, run
// from a private temporary folder) and judges them with run's own checks (check_versions,
// check_torchvision, namespace_checks, nvrtc_checks, the nvcc arch list parser), applied to
// a cell declared as what is found here. A script that fails is reported with its exit status
// and the tail of its stderr; the findings that needed it are marked unknown, never ok or
// APPLIES.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "matrix/model.h"
#include "results/cell_result.h"

namespace opmatrix {

struct DoctorFinding {
  std::string id;       // short name of the known failure
  bool applies = false;
  bool known = true;    // false: a script it needs failed, so doctor cannot tell
  std::string title;    // the error users see
  std::string detail;   // why it applies (or why not) here
  std::string fix;      // one line
};

struct DoctorReport {
  // python, scripts (how each ran), probe (probe.py's JSON), torchvision_view
  // (torchvision_registrations.py's), nvcc_path + nvcc_archs, gpu, nvrtc, libtorch.
  nlohmann::json environment;
  std::vector<CheckResult> checks;  // run's judges on those facts
  std::vector<DoctorFinding> findings;
};

struct DoctorInputs {
  std::string python;    // interpreter to ask; "" = $OPMATRIX_PYTHON or python3
  std::string libtorch;  // a LibTorch folder to inspect as well ("" = none)
};

DoctorReport run_doctor(const DoctorInputs& in);

// The cell `opmatrix run` would see here: torch, torchvision and CUDA (torch's) as found,
// nvcc as found (its NVCC build arg).
Cell cell_as_found(const nlohmann::json& environment);

// Checks and findings from gathered facts (pure, so it is tested with canned JSON).
DoctorReport judge_environment(const nlohmann::json& environment);
std::vector<DoctorFinding> doctor_findings(const nlohmann::json& environment);

// The scripts that did not run to the end (name: error), from environment["scripts"].
std::vector<std::string> failed_scripts(const nlohmann::json& environment);

std::string format_doctor_text(const DoctorReport& report);
nlohmann::json doctor_json(const DoctorReport& report);

}  // namespace opmatrix
