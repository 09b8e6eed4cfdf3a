// `opmatrix doctor`: what this environment is (torch, torchvision, nvcc, GPU) and which of
// the failures users report apply here, each with its fix in one line.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace opmatrix {

struct DoctorFinding {
  std::string id;       // short name of the known failure
  bool applies = false;
  std::string title;    // the error users see
  std::string detail;   // why it applies (or why not) here
  std::string fix;      // one line
};

struct DoctorReport {
  nlohmann::json environment;  // probe + torchvision view + nvcc archs + GPU + LibTorch facts
  std::vector<DoctorFinding> findings;
};

struct DoctorInputs {
  std::string python;    // interpreter to ask; "" = $OPMATRIX_PYTHON or python3
  std::string libtorch;  // a LibTorch folder to inspect as well ("" = none)
};

DoctorReport run_doctor(const DoctorInputs& in);

// The findings from gathered facts (separate so it can be tested without a torch install).
std::vector<DoctorFinding> doctor_findings(const nlohmann::json& environment);

std::string format_doctor_text(const DoctorReport& report);
nlohmann::json doctor_json(const DoctorReport& report);

}  // namespace opmatrix
