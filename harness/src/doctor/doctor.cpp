#include "doctor/doctor.h"

#include <algorithm>
#include <cstdlib>
#include <future>
#include <map>
#include <optional>
#include <regex>

#include <fmt/format.h>

#include "diagnose/diagnose.h"
#include "doctor/libtorch_inspect.h"
#include "doctor/script_folder.h"
#include "matrix/versions.h"
#include "checks/load/load_judge.h"
#include "checks/nvrtc/nvrtc_judge.h"
#include "checks/arch/arch_judge.h"
#include "run/process.h"
#include "checks/torchvision/torchvision_judge.h"
#include "checks/versions/versions_judge.h"
#include "util/json_fields.h"

namespace opmatrix {

namespace {

constexpr const char* kProbe = "probe.py";
constexpr const char* kTorchvision = "torchvision_registrations.py";
constexpr const char* kNvrtc = "nvrtc_probe.py";
constexpr double kScriptTimeout = 180;

nlohmann::json member(const nlohmann::json& j, const char* key) {
  if (!j.is_object()) return nullptr;
  auto it = j.find(key);
  return it != j.end() ? *it : nlohmann::json(nullptr);
}

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

bool same_major(const std::string& a, const std::string& b) {
  auto x = major_minor(a), y = major_minor(b);
  return x && y && x->major == y->major;
}

// What the facts say, read once for the findings and the text.
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

const CheckResult* find_check(const std::vector<CheckResult>& checks, const std::string& check, const std::string& op = "") {
  for (const auto& c : checks)
    if (c.check == check && c.op == op) return &c;
  return nullptr;
}

std::string kind_of(const CheckResult* c) { return c && c->diagnosis ? c->diagnosis->kind : std::string(); }

std::string script_failure(const nlohmann::json& env, const char* script) {
  const nlohmann::json s = member(member(env, "scripts"), script);
  const std::string error = json_text(s, "error");
  return fmt::format("unknown: {} (see Scripts above)", error.empty() ? std::string(script) + " did not run" : error);
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

std::vector<DoctorFinding> findings_from(const nlohmann::json& env, const Facts& f, const std::vector<CheckResult>& checks) {
  std::vector<DoctorFinding> out;
  const CheckResult* tv_check = find_check(checks, "torchvision");
  const std::string tv_kind = kind_of(tv_check);
  auto unknown = [&](DoctorFinding& d, const char* script) {
    d.known = false;
    d.detail = script_failure(env, script);
  };

  {
    DoctorFinding d{"cuda_backend", false, true, "Could not run 'torchvision::nms' with arguments from the 'CUDA' backend",
                    "", ""};
    // check_torchvision's verdict: torch has CUDA, torchvision imports, and nms has no CUDA
    // kernel or torchvision's CUDA differs from torch's.
    if (!f.view_known) unknown(d, kTorchvision);
    else if (!f.torch_imports) d.detail = "torch does not import here";
    else if (f.torch_cuda.empty()) d.detail = "torch has no CUDA, so no CUDA tensors reach torchvision";
    else if (!f.tv_installed) d.detail = "no torchvision here";
    else if (!f.tv_imports) d.detail = "torchvision does not import here (see the import items below)";
    else if (tv_check && is_bad(tv_check->status) && (tv_kind == "not_registered" || tv_kind == "cuda_mismatch")) {
      d.applies = true;
      d.detail = tv_check->diagnosis->summary;
      d.fix = tv_check->diagnosis->fix;
    } else {
      d.detail = fmt::format("torchvision::nms has a CUDA kernel; torchvision CUDA {} = torch CUDA {}",
                             json_text(f.view, "torchvision_cuda"), f.torch_cuda);
    }
    if (d.fix.empty())
      d.fix = "pip install the torchvision wheel built for this torch and CUDA (same index and version pairing as torch)";
    out.push_back(d);
  }
  {
    DoctorFinding d{"gpu_arch", false, true, "nvrtc: error: invalid value for --gpu-architecture (-arch)", "", ""};
    const auto archs = env.value("nvcc_archs", std::vector<std::string>{});
    const std::string targets = archs.empty() ? std::string("-") : fmt::format("{}", fmt::join(archs, " sm_"));
    if (!json_flag(f.gpu, "present")) {
      d.detail = fmt::format("no GPU here ({}); {}", f.gpu.value("reason", "?"),
                             !f.probe_known   ? std::string("nvcc unknown")
                             : f.nvcc.empty() ? std::string("no nvcc")
                                              : fmt::format("nvcc {} targets sm_{}", f.nvcc, targets));
    } else if (!f.probe_known) {
      unknown(d, kProbe);
    } else {
      const std::string dotted = json_text(f.gpu, "compute_cap");
      std::string cap = dotted;
      cap.erase(std::remove(cap.begin(), cap.end(), '.'), cap.end());
      const bool listed = std::find(archs.begin(), archs.end(), cap) != archs.end();
      std::vector<std::string> parts;
      if (!f.nvcc.empty()) {
        parts.push_back(fmt::format("nvcc {} {} sm_{}", f.nvcc, listed ? "targets" : "cannot target", cap));
        if (!archs.empty() && !listed) d.applies = true;
      }
      if (const CheckResult* n = find_check(checks, "nvrtc")) {
        parts.push_back(n->message);
        if (is_bad(n->status)) d.applies = true;
      }
      if (parts.empty()) parts.push_back("no nvcc and no NVRTC here to ask");
      d.detail = fmt::format("GPU {} is sm_{}: {}", json_text(f.gpu, "name"), cap, fmt::join(parts, "; "));
    }
    d.fix = "use a CUDA toolkit that supports the GPU (sm_100/sm_120 need CUDA 12.8+, CUDA 13 dropped sm_70 and older)";
    out.push_back(d);
  }
  {
    DoctorFinding d{"meta_kernel", false, true,
                    "Unhandled FakeTensor Device Propagation for torchvision.deform_conv2d.default", "", ""};
    const CheckResult* meta = find_check(checks, "meta", "deform_conv2d");
    if (!f.view_known) unknown(d, kTorchvision);
    else if (!f.tv_imports) d.detail = "torchvision does not import here";
    else if (!meta) d.detail = "this torchvision has no deform_conv2d op";
    else if (is_bad(meta->status)) {
      d.applies = true;
      d.detail = meta->message;
    } else {
      d.detail = meta->message;
    }
    d.fix = "use a torchvision that registers Meta kernels (0.16+ registers them from Python on import)";
    out.push_back(d);
  }
  {
    DoctorFinding d{"undefined_symbol", false, true, "ImportError: …_C.so: undefined symbol: …", "", ""};
    if (!f.view_known) unknown(d, kTorchvision);
    else if (tv_kind == "undefined_symbol") {
      d.applies = true;
      d.detail = "torchvision's extension does not load: undefined symbol " + undefined_symbols_in(f.tv_error);
    } else if (f.tv_imports) d.detail = "torchvision's extension loads";
    else if (!f.tv_installed) d.detail = "no torchvision here";
    else d.detail = "torchvision does not import, but not for an undefined symbol";
    const nlohmann::json lt = member(env, "libtorch");
    if (lt.is_object() && member(lt, "cxx11_abi").is_boolean() && member(f.probe, "cxx11_abi").is_boolean() &&
        lt["cxx11_abi"] != f.probe["cxx11_abi"]) {
      d.applies = true;
      d.known = true;
      d.detail += fmt::format("; the LibTorch at {} uses _GLIBCXX_USE_CXX11_ABI={} but python's torch uses {}: an "
                              "extension built against one fails to load in the other",
                              json_text(lt, "root"), lt["cxx11_abi"].get<bool>() ? 1 : 0, f.probe["cxx11_abi"].get<bool>() ? 1 : 0);
    }
    d.fix = "rebuild the extension against the torch it is loaded into (same version, same C++ ABI)";
    out.push_back(d);
  }
  {
    DoctorFinding d{"torchvision_import", false, true,
                    "import torchvision fails (e.g. RuntimeError: operator torchvision::nms does not exist)", "", ""};
    if (!f.view_known) unknown(d, kTorchvision);
    else if (!f.torch_imports) d.detail = "torch does not import here: " + f.tv_error;
    else if (f.tv_imports) d.detail = "torchvision " + json_text(f.view, "torchvision") + " imports";
    else if (!f.tv_installed) d.detail = "no torchvision here";
    else if (tv_kind == "undefined_symbol") d.detail = "see the undefined symbol item";
    else {
      d.applies = true;
      d.detail = f.tv_error;
      if (tv_check && tv_check->diagnosis) d.fix = tv_check->diagnosis->fix;
    }
    if (d.fix.empty()) d.fix = "install the torchvision built for this torch and CUDA, from the same index as torch";
    out.push_back(d);
  }
  {
    DoctorFinding d{"torch_without_cuda", false, true, "AssertionError: Torch not compiled with CUDA enabled", "", ""};
    if (!f.probe_known) unknown(d, kProbe);
    else if (f.torch.empty()) d.detail = "no torch found";
    else if (!f.torch_cuda.empty()) d.detail = "torch has CUDA " + f.torch_cuda;
    else if (!f.nvcc.empty() || json_flag(f.gpu, "present")) {
      d.applies = true;
      d.detail = fmt::format("torch {} is CPU-only although {} is here: CUDA extensions build CPU-only or fail, "
                             ".cuda() raises", f.torch, !f.nvcc.empty() ? "nvcc " + f.nvcc : std::string("a GPU"));
    } else d.detail = "CPU-only torch on a machine without CUDA: consistent";
    d.fix = "install a CUDA build of torch (PyPI's default Linux wheel) to use the GPU";
    out.push_back(d);
  }
  {
    // torch.utils.cpp_extension raises this when nvcc's major version is not torch's (a minor
    // difference is a warning); torchvision's CUDA against torch's is the first item's.
    DoctorFinding d{"cuda_versions", false, true,
                    "The detected CUDA version mismatches the version that was used to compile PyTorch", "", ""};
    if (!f.probe_known) unknown(d, kProbe);
    else if (f.torch_cuda.empty()) d.detail = "torch has no CUDA";
    else if (f.nvcc.empty()) d.detail = "no nvcc here to build CUDA extensions with";
    else if (!same_major(f.torch_cuda, f.nvcc)) {
      d.applies = true;
      d.detail = fmt::format("nvcc {} vs torch CUDA {}: another major version, so building a CUDA extension "
                             "against this torch fails",
                             f.nvcc, f.torch_cuda);
    } else d.detail = fmt::format("nvcc {} and torch CUDA {} share the major version", f.nvcc, f.torch_cuda);
    d.fix = "use an nvcc of torch's CUDA major version (or a torch built for this nvcc's CUDA)";
    out.push_back(d);
  }
  return out;
}

nlohmann::json check_json(const CheckResult& c) {
  nlohmann::json j{{"check", c.check}, {"status", to_string(c.status)}, {"message", c.message}};
  if (!c.op.empty()) j["op"] = c.op;
  if (!c.arch.empty()) j["arch"] = c.arch;
  if (c.diagnosis)
    j["diagnosis"] = {{"kind", c.diagnosis->kind}, {"summary", c.diagnosis->summary}, {"fix", c.diagnosis->fix}};
  return j;
}

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
  const Facts f = read_facts(env);
  rep.checks = run_checks(env, f);
  rep.findings = findings_from(env, f, rep.checks);
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

std::string format_doctor_text(const DoctorReport& report) {
  const auto& env = report.environment;
  const Facts f = read_facts(env);
  const nlohmann::json py = member(env, "python");
  auto or_none = [](const std::string& s) { return s.empty() ? std::string("none") : s; };
  std::string out = "opmatrix doctor\n";
  out += fmt::format("  python       {}{}{}\n", json_text(py, "executable"),
                     json_text(py, "version").empty() ? "" : " (" + json_text(py, "version") + ")",
                     json_text(py, "error").empty() ? "" : " (" + json_text(py, "error") + ")");
  if (!f.probe_known) {
    out += "  torch        unknown: probe.py failed (see Scripts below)\n";
  } else if (!f.torch.empty()) {
    out += fmt::format("  torch        {} · CUDA {} · C++ ABI _GLIBCXX_USE_CXX11_ABI={} · cmake prefix {}\n", f.torch,
                       or_none(f.torch_cuda), json_flag(f.probe, "cxx11_abi") ? 1 : 0, or_none(json_text(f.probe, "torch_cmake_prefix")));
  } else {
    out += "  torch        not importable\n";
  }
  if (f.view_known && f.tv_imports) {
    out += fmt::format("  torchvision  {} · CUDA {} (torch's: {})\n", json_text(f.view, "torchvision"),
                       or_none(json_text(f.view, "torchvision_cuda")), or_none(f.torch_cuda));
    const nlohmann::json ops = f.view.value("ops", nlohmann::json::object());
    if (!ops.empty()) {
      out += fmt::format("  kernels      {:<15} {:<8} {:<8} {:<8} {}\n", "op", "CPU", "CUDA", "Meta", "Autograd");
      for (const auto& [op, keys] : ops.items()) out += "               " + kernel_row(op, keys) + "\n";
    }
  } else if (f.view_known) {
    const std::string version = json_text(f.probe, "torchvision");
    out += fmt::format("  torchvision  {}\n", !f.tv_installed ? std::string("none")
                                                               : fmt::format("{}does not import: {}",
                                                                             version.empty() ? "" : version + " ",
                                                                             f.tv_error));
  } else {
    const std::string version = json_text(f.probe, "torchvision");
    out += fmt::format("  torchvision  {}kernels unknown: {} failed (see Scripts below)\n",
                       version.empty() ? "" : version + " (probe.py) · ", kTorchvision);
  }
  const auto archs = env.value("nvcc_archs", std::vector<std::string>{});
  out += fmt::format("  nvcc         {}{}\n", f.probe_known ? or_none(f.nvcc) : std::string("unknown"),
                     archs.empty() ? std::string()
                                   : fmt::format(" ({}) · targets sm_{}", env.value("nvcc_path", ""), fmt::join(archs, " sm_")));
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

  const nlohmann::json scripts = member(env, "scripts");
  if (!failed_scripts(env).empty()) {
    out += "\nScripts (scripts/cell, embedded; run from a temporary folder):\n";
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
  }

  if (!report.checks.empty()) {
    const Cell cell = cell_as_found(env);
    out += fmt::format("\nAs `opmatrix run` judges a cell declared as found here (torch {}, torchvision {}, CUDA {}):\n",
                       or_none(cell.torch), or_none(cell.torchvision), cell.cuda);
    // registration and meta come per op: one line each, the failing ops named.
    std::map<std::string, std::pair<std::vector<std::string>, std::vector<std::string>>> per_op;  // check -> ok, bad
    for (const auto& c : report.checks) {
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
  }

  out += "\nKnown failures:\n";
  for (const auto& d : report.findings) {
    out += fmt::format("  [{}] {}\n        {}\n", !d.known ? "unknown" : d.applies ? "APPLIES" : "ok", d.title, d.detail);
    if (d.applies) out += fmt::format("        fix: {}\n", d.fix);
  }
  return out;
}

}  // namespace opmatrix
