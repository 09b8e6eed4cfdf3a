// `opmatrix doctor`'s text: what was found, the scripts that failed, run's checks, the known
// failures.
#include <algorithm>
#include <map>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "doctor/doctor.h"
#include "doctor/facts.h"
#include "engine/container_engines.h"
#include "util/json_fields.h"

namespace opmatrix {

namespace {

using doctor::Facts;
using doctor::member;

std::string or_none(const std::string& s) { return s.empty() ? std::string("none") : s; }

// "CPU CUDA Meta Autograd" columns for one op; n/a where the op itself is not registered.
std::string kernel_row(const std::string& op, const nlohmann::json& keys) {
  std::string row = fmt::format("{:<15}", op);
  for (const char* k : {"CPU", "CUDA", "Meta", "Autograd"}) {
    const nlohmann::json v = member(keys, k);
    row += fmt::format(" {:<8}", v.is_boolean() ? (v.get<bool>() ? "yes" : "-") : "n/a");
  }
  while (!row.empty() && row.back() == ' ') row.pop_back();
  return row;
}

std::string indent(const std::string& block, const std::string& prefix) {
  std::string out;
  std::size_t begin = 0;
  while (begin <= block.size()) {
    std::size_t end = block.find('\n', begin);
    if (end == std::string::npos) end = block.size();
    out += prefix + block.substr(begin, end - begin) + "\n";
    begin = end + 1;
  }
  return out;
}

std::string python_and_torch_lines(const nlohmann::json& env, const Facts& f) {
  const nlohmann::json py = member(env, "python");
  std::string out = fmt::format("  python       {}{}{}\n", json_text(py, "executable"),
                                json_text(py, "version").empty() ? "" : " (" + json_text(py, "version") + ")",
                                json_text(py, "error").empty() ? "" : " (" + json_text(py, "error") + ")");
  if (!f.probe_known)
    return out + "  torch        unknown: probe.py failed (see Scripts below)\n";
  if (f.torch.empty()) return out + "  torch        not importable\n";
  return out + fmt::format("  torch        {} · CUDA {} · C++ ABI _GLIBCXX_USE_CXX11_ABI={} · cmake prefix {}\n", f.torch,
                           or_none(f.torch_cuda), json_flag(f.probe, "cxx11_abi") ? 1 : 0,
                           or_none(json_text(f.probe, "torch_cmake_prefix")));
}

// torchvision and, where it imports, its ops' kernels.
std::string torchvision_lines(const Facts& f) {
  const std::string version = json_text(f.probe, "torchvision");
  if (!f.view_known)
    return fmt::format("  torchvision  {}kernels unknown: {} failed (see Scripts below)\n",
                       version.empty() ? "" : version + " (probe.py) · ", doctor::kTorchvision);
  if (!f.tv_imports)
    return fmt::format("  torchvision  {}\n", !f.tv_installed ? std::string("none")
                                                               : fmt::format("{}does not import: {}",
                                                                             version.empty() ? "" : version + " ",
                                                                             f.tv_error));
  std::string out = fmt::format("  torchvision  {} · CUDA {} (torch's: {})\n", json_text(f.view, "torchvision"),
                                or_none(json_text(f.view, "torchvision_cuda")), or_none(f.torch_cuda));
  const nlohmann::json ops = f.view.value("ops", nlohmann::json::object());
  if (!ops.empty()) {
    out += fmt::format("  kernels      {:<15} {:<8} {:<8} {:<8} {}\n", "op", "CPU", "CUDA", "Meta", "Autograd");
    for (const auto& [op, keys] : ops.items()) out += "               " + kernel_row(op, keys) + "\n";
  }
  return out;
}

// Which container engines answer; with none, what to install (`opmatrix run` needs one).
std::string engine_lines(const nlohmann::json& env) {
  const nlohmann::json engines = doctor::member(env, "engines");
  if (!engines.is_object()) return "";
  std::vector<std::string> found;
  for (const auto& [kind, version] : engines.items())
    found.push_back(version.is_string() ? version.get<std::string>() : kind + " none");
  if (env.contains("base_image_tool")) {
    const nlohmann::json& tool = env["base_image_tool"];
    found.push_back(fmt::format("{} (podman's base images)", tool.is_string() ? tool.get<std::string>()
                                                                              : std::string(kBaseImageTool) + " none"));
  }
  std::string out = fmt::format("  engines      {}\n", fmt::join(found, " · "));
  if (std::none_of(engines.begin(), engines.end(), [](const nlohmann::json& v) { return v.is_string(); }))
    out += fmt::format("               `opmatrix run` runs cells in a container engine: {}\n",
                       container_engine_fix(container_engines().front().kind));
  return out;
}

std::string nvcc_gpu_libtorch_lines(const nlohmann::json& env, const Facts& f) {
  const auto archs = env.value("nvcc_archs", std::vector<std::string>{});
  std::string out = fmt::format("  nvcc         {}{}\n", f.probe_known ? or_none(f.nvcc) : std::string("unknown"),
                                archs.empty() ? std::string()
                                              : fmt::format(" ({}) · targets sm_{}", env.value("nvcc_path", ""),
                                                            fmt::join(archs, " sm_")));
  if (json_flag(f.gpu, "present"))
    out += fmt::format("  GPU          {} · sm_{} · driver {}\n", json_text(f.gpu, "name"), json_text(f.gpu, "compute_cap"),
                       json_text(f.gpu, "driver"));
  else
    out += fmt::format("  GPU          none: {}\n", f.gpu.value("reason", ""));
  if (env.contains("libtorch")) {
    const auto& l = env["libtorch"];
    out += fmt::format("  LibTorch     {} · version {} · CUDA {} · C++ ABI {}{}\n", l.value("root", ""),
                       or_none(l.value("version", "")), l.value("has_cuda", false) ? "yes" : "no",
                       l["cxx11_abi"].is_boolean() ? (l["cxx11_abi"].get<bool>() ? "1" : "0") : "unknown",
                       l.value("error", "").empty() ? "" : " (" + l.value("error", "") + ")");
  }
  return out;
}

// Every script, where one failed: the failed ones with their command and stderr's last lines.
std::string scripts_section(const nlohmann::json& env) {
  if (failed_scripts(env).empty()) return "";
  const nlohmann::json scripts = member(env, "scripts");
  std::string out = "\nScripts (scripts/cell, embedded; run from a temporary folder):\n";
  for (const auto& [name, s] : scripts.items()) {
    if (s.value("ok", false)) {
      out += fmt::format("  ok      {}\n", name);
      continue;
    }
    out += fmt::format("  FAILED  {}\n", s.value("error", std::string("did not run")));
    out += fmt::format("          command: {}\n", s.value("command", std::string()));
    const std::string tail = s.value("stderr_tail", std::string());
    out += tail.empty() ? "          (nothing on stderr)\n" : "          stderr (last lines):\n" + indent(tail, "            ");
  }
  return out;
}

std::string checks_section(const nlohmann::json& env, const std::vector<CheckResult>& checks) {
  if (checks.empty()) return "";
  const Cell cell = cell_as_found(env);
  std::string out = fmt::format("\nAs `opmatrix run` judges a cell declared as found here (torch {}, torchvision {}, CUDA {}):\n",
                                or_none(cell.torch), or_none(cell.torchvision), cell.cuda);
  // registration and meta come per op: one line each, the failing ops named.
  std::map<std::string, std::pair<std::vector<std::string>, std::vector<std::string>>> per_op;  // check -> ok, bad
  for (const auto& c : checks) {
    if (c.op.empty()) {
      out += fmt::format("  {:<13}{:<6}{}\n", c.check + (c.arch.empty() ? "" : " " + c.arch), to_string(c.status),
                         c.message);
      continue;
    }
    auto& [ok, bad] = per_op[c.check];
    (is_bad(c.status) ? bad : ok).push_back(c.op);
  }
  for (const auto& [check, lists] : per_op) {
    const auto& [ok, bad] = lists;
    if (bad.empty())
      out += fmt::format("  {:<13}{:<6}{}\n", check, "pass", fmt::format("torchvision::{} ({} ops)", fmt::join(ok, ", "), ok.size()));
    else
      out += fmt::format("  {:<13}{:<6}{}: {}{}\n", check, "fail",
                         check == "meta" ? "no Meta kernel" : "missing kernels", fmt::join(bad, ", "),
                         ok.empty() ? std::string() : fmt::format(" (ok: {})", fmt::join(ok, ", ")));
  }
  return out;
}

std::string findings_section(const std::vector<DoctorFinding>& findings) {
  std::string out = "\nKnown failures:\n";
  for (const auto& d : findings) {
    out += fmt::format("  [{}] {}\n        {}\n", !d.known ? "unknown" : d.applies ? "APPLIES" : "ok", d.title, d.detail);
    if (d.applies) out += fmt::format("        fix: {}\n", d.fix);
  }
  return out;
}

}  // namespace

std::string format_doctor_text(const DoctorReport& report) {
  const auto& env = report.environment;
  const Facts f = doctor::read_facts(env);
  return "opmatrix doctor\n" + python_and_torch_lines(env, f) + torchvision_lines(f) + nvcc_gpu_libtorch_lines(env, f) +
         engine_lines(env) + scripts_section(env) + checks_section(env, report.checks) + findings_section(report.findings);
}

}  // namespace opmatrix
