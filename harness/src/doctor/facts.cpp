#include "doctor/facts.h"

#include "util/json_fields.h"

namespace opmatrix::doctor {

nlohmann::json member(const nlohmann::json& j, const char* key) {
  if (!j.is_object()) return nullptr;
  auto it = j.find(key);
  return it != j.end() ? *it : nlohmann::json(nullptr);
}

Facts read_facts(const nlohmann::json& env) {
  Facts f;
  f.probe = member(env, "probe");
  f.view = member(env, "torchvision_view");
  f.gpu = env.value("gpu", nlohmann::json::object());
  f.probe_known = f.probe.is_object();
  f.view_known = f.view.is_object();
  f.torch = json_text(f.probe, "torch");
  f.torch_cuda = f.probe_known ? json_text(f.probe, "torch_cuda") : json_text(f.view, "torch_cuda");
  f.nvcc = json_text(f.probe, "nvcc");
  f.tv_error = json_text(f.view, "error");
  f.tv_imports = json_flag(f.view, "import_ok");
  f.torch_imports = f.view_known ? f.tv_error.rfind("import torch:", 0) != 0 : !f.torch.empty();
  const bool not_found = f.tv_error.find("No module named 'torchvision'") != std::string::npos;
  f.tv_installed = f.tv_imports || !json_text(f.probe, "torchvision").empty() || !json_text(f.probe, "torchvision_ext").empty() ||
                   (!f.probe_known && f.view_known && f.torch_imports && !not_found);
  return f;
}

const CheckResult* find_check(const std::vector<CheckResult>& checks, const std::string& check, const std::string& op) {
  for (const auto& c : checks)
    if (c.check == check && c.op == op) return &c;
  return nullptr;
}

}  // namespace opmatrix::doctor
