#include "doctor/doctor.h"

#include <cstdlib>
#include <future>
#include <optional>
#include <regex>

#include <fmt/format.h>

#include "doctor/facts.h"
#include "doctor/known_failures.h"
#include "doctor/libtorch_inspect.h"
#include "doctor/script_folder.h"
#include "matrix/versions.h"
#include "checks/load/load_judge.h"
#include "checks/nvrtc/nvrtc_judge.h"
#include "checks/arch/arch_judge.h"
#include "engine/container_engines.h"
#include "engine/process.h"
#include "checks/torchvision/torchvision_judge.h"
#include "checks/versions/versions_judge.h"
#include "util/json_fields.h"

namespace opmatrix {

namespace {

using doctor::Facts;
using doctor::kNvrtc;
using doctor::kProbe;
using doctor::kTorchvision;
using doctor::member;

constexpr double kScriptTimeout = 180;

std::vector<std::string> nvcc_archs(const std::string& nvcc) {
  ProcessSpec spec;
  spec.argv = {nvcc, "--list-gpu-arch"};
  spec.capture_stdout = true;
  spec.timeout_s = 60;
  return parse_nvcc_gpu_archs(run_process(spec).stdout_text);
}

nlohmann::json gpu_info() {
  ProcessSpec spec;
  spec.argv = {"nvidia-smi", "--query-gpu=name,compute_cap,driver_version", "--format=csv,noheader"};
  spec.capture_stdout = true;
  spec.timeout_s = 60;
  ProcessResult r = run_process(spec);
  if (!r.started) return {{"present", false}, {"reason", "nvidia-smi not found (no NVIDIA driver)"}};
  if (!r.ok()) return {{"present", false}, {"reason", "nvidia-smi failed: no usable GPU"}};
  static const std::regex re(R"(^\s*([^,]+),\s*([0-9.]+),\s*([^,\n]+))");
  std::smatch m;
  if (!std::regex_search(r.stdout_text, m, re)) return {{"present", false}, {"reason", "nvidia-smi listed no GPU"}};
  return {{"present", true}, {"name", m[1].str()}, {"compute_cap", m[2].str()}, {"driver", m[3].str()}};
}

std::vector<CheckResult> run_checks(const nlohmann::json& env, const Facts& f) {
  std::vector<CheckResult> checks;
  const Cell cell = cell_as_found(env);
  if (f.probe_known) checks.push_back(check_versions(cell, f.probe));
  if (f.view_known) {
    checks.push_back(check_torchvision(cell, f.view, ""));
    if (f.tv_imports) {
      const std::string repro = fmt::format("{} scripts/cell/{}", json_text(member(env, "python"), "executable"), kTorchvision);
      for (auto& c : namespace_checks(f.view, "torchvision", !f.torch_cuda.empty(), repro)) checks.push_back(std::move(c));
    }
  }
  const nlohmann::json nvrtc = member(env, "nvrtc");
  if (nvrtc.is_object() && json_flag(f.gpu, "present"))
    for (auto& c : nvrtc_checks(nvrtc, {json_text(f.gpu, "compute_cap")}, fmt::format("python scripts/cell/{}", kNvrtc)))
      checks.push_back(std::move(c));
  return checks;
}

nlohmann::json check_json(const CheckResult& c) {
  nlohmann::json j{{"check", c.check}, {"status", to_string(c.status)}, {"message", c.message}};
  if (!c.op.empty()) j["op"] = c.op;
  if (!c.arch.empty()) j["arch"] = c.arch;
  if (c.diagnosis)
    j["diagnosis"] = {{"kind", c.diagnosis->kind}, {"summary", c.diagnosis->summary}, {"fix", c.diagnosis->fix}};
  return j;
}

}  // namespace

Cell cell_as_found(const nlohmann::json& env) {
  const nlohmann::json probe = member(env, "probe");
  const nlohmann::json view = member(env, "torchvision_view");
  Cell c;
  c.id = "this-environment";
  // Nothing found: "any" stands for the version a cell would declare ("torch any declared, none found").
  c.torch = json_text(probe, "torch").empty() ? "any" : json_text(probe, "torch");
  c.torchvision = !json_text(probe, "torchvision").empty() ? json_text(probe, "torchvision")
                  : !json_text(view, "torchvision").empty() ? json_text(view, "torchvision")
                                                       : "any";
  const std::string torch_cuda = probe.is_object() ? json_text(probe, "torch_cuda") : json_text(view, "torch_cuda");
  c.cuda = torch_cuda.empty() ? "none" : torch_cuda;
  if (!json_text(probe, "nvcc").empty()) c.image.args.emplace_back("NVCC", json_text(probe, "nvcc"));
  return c;
}

std::vector<std::string> failed_scripts(const nlohmann::json& env) {
  std::vector<std::string> out;
  const nlohmann::json scripts = member(env, "scripts");
  if (!scripts.is_object()) return out;
  for (const auto& [name, s] : scripts.items())
    if (!s.value("ok", false)) out.push_back(name + ": " + s.value("error", std::string("did not run")));
  return out;
}

DoctorReport judge_environment(const nlohmann::json& env) {
  DoctorReport rep;
  rep.environment = env;
  const Facts f = doctor::read_facts(env);
  rep.checks = run_checks(env, f);
  rep.findings = doctor::findings_from(env, f, rep.checks);
  return rep;
}

std::vector<DoctorFinding> doctor_findings(const nlohmann::json& env) { return judge_environment(env).findings; }

DoctorReport run_doctor(const DoctorInputs& in) {
  nlohmann::json env;
  std::string python = in.python;
  if (python.empty()) {
    const char* p = std::getenv("OPMATRIX_PYTHON");
    python = p && *p ? p : "python3";
  }
  env["python"] = {{"executable", python}};
  env["scripts"] = nlohmann::json::object();
  std::optional<ScriptFolder> folder;
  try {
    folder.emplace();
  } catch (const std::exception& e) {
    env["python"]["error"] = e.what();
  }
  auto record = [&](const ScriptRun& r, const char* key) {
    env["scripts"][r.script] = script_run_json(r);
    env[key] = r.ok ? r.output : nlohmann::json(nullptr);
  };
  if (folder) {
    // Both import torch (seconds each): side by side.
    auto tv = std::async(std::launch::async, [&] { return run_embedded_script(python, *folder, kTorchvision, {}, kScriptTimeout); });
    record(run_embedded_script(python, *folder, kProbe, {}, kScriptTimeout), "probe");
    record(tv.get(), "torchvision_view");
  } else {
    env["probe"] = nullptr;
    env["torchvision_view"] = nullptr;
  }
  const nlohmann::json& probe = env["probe"];
  if (probe.is_object() && !json_text(probe, "python").empty()) env["python"]["version"] = json_text(probe, "python");
  const std::string root = json_text(probe, "cuda_root");
  const std::string nvcc = root.empty() ? "nvcc" : root + "/bin/nvcc";
  if (!json_text(probe, "nvcc").empty()) {
    env["nvcc_path"] = nvcc;
    env["nvcc_archs"] = nvcc_archs(nvcc);
  }
  env["gpu"] = gpu_info();
  // What `opmatrix run` runs its cells in (the host's; never in the wheel).
  env["engines"] = nlohmann::json::object();
  for (const auto& e : container_engines()) {
    const std::string version = program_version(e.kind);
    env["engines"][e.kind] = version.empty() ? nlohmann::json(nullptr) : nlohmann::json(version);
  }
  const std::string tool = program_version(kBaseImageTool);
  env["base_image_tool"] = tool.empty() ? nlohmann::json(nullptr) : nlohmann::json(tool);
  // With a GPU: does the NVRTC torch would load compile for it (run's `nvrtc` check).
  if (folder && env["gpu"].value("present", false)) {
    ScriptRun r = run_embedded_script(python, *folder, kNvrtc, {"--cuda-root", root, json_text(env["gpu"], "compute_cap")},
                                      kScriptTimeout);
    record(r, "nvrtc");
  }
  if (!in.libtorch.empty()) {
    LibtorchFacts f = inspect_libtorch(in.libtorch);
    env["libtorch"] = {{"root", f.root}, {"version", f.version}, {"has_cuda", f.has_cuda}, {"cmake_prefix", f.cmake_prefix},
                       {"error", f.error}};
    env["libtorch"]["cxx11_abi"] = f.cxx11_abi ? nlohmann::json(*f.cxx11_abi) : nlohmann::json(nullptr);
  }
  return judge_environment(env);
}

nlohmann::json doctor_json(const DoctorReport& report) {
  nlohmann::json j;
  j["environment"] = report.environment;
  const Cell cell = cell_as_found(report.environment);
  j["cell_as_found"] = {{"torch", cell.torch}, {"torchvision", cell.torchvision}, {"cuda", cell.cuda}};
  j["checks"] = nlohmann::json::array();
  for (const auto& c : report.checks) j["checks"].push_back(check_json(c));
  j["findings"] = nlohmann::json::array();
  for (const auto& f : report.findings)
    j["findings"].push_back(
        {{"id", f.id}, {"applies", f.applies}, {"known", f.known}, {"title", f.title}, {"detail", f.detail}, {"fix", f.fix}});
  j["failed_scripts"] = failed_scripts(report.environment);
  return j;
}

}  // namespace opmatrix
