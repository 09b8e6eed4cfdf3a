// What doctor's gathered environment says, read once for the findings and the text. Internal
// to doctor/.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "results/cell_result.h"

namespace opmatrix::doctor {

// The in-cell scripts doctor runs (scripts/cell).
constexpr const char* kProbe = "probe.py";
constexpr const char* kTorchvision = "torchvision_registrations.py";
constexpr const char* kNvrtc = "nvrtc_probe.py";

// j[key], or null where j is not an object or lacks it.
nlohmann::json member(const nlohmann::json& j, const char* key);

struct Facts {
  nlohmann::json probe;  // null: probe.py did not run to the end
  nlohmann::json view;   // null: torchvision_registrations.py did not
  nlohmann::json gpu;
  bool probe_known = false;
  bool view_known = false;
  std::string torch, torch_cuda, nvcc, tv_error;
  bool torch_imports = false;  // as the torchvision view saw it
  bool tv_imports = false;
  bool tv_installed = false;
};

Facts read_facts(const nlohmann::json& env);

// The check of that name (and op), or nullptr.
const CheckResult* find_check(const std::vector<CheckResult>& checks, const std::string& check,
                              const std::string& op = "");

}  // namespace opmatrix::doctor
