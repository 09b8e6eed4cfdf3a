#include "doctor/doctor.h"

#include <cstdlib>
#include <regex>

#include <fmt/format.h>

#include "diagnose/diagnose.h"
#include "doctor/libtorch_inspect.h"
#include "embedded_scripts.h"
#include "matrix/versions.h"
#include "run/process.h"

namespace opmatrix {

namespace {

nlohmann::json run_python_json(const std::string& python, const char* script, std::string& error) {
  ProcessSpec spec;
  spec.argv = {python, "-c", script};
  spec.capture_stdout = true;
  spec.timeout_s = 180;
  ProcessResult r = run_process(spec);
  if (!r.started) {
    error = r.start_error;
    return nullptr;
  }
  nlohmann::json j = nlohmann::json::parse(r.stdout_text, nullptr, false);
  if (j.is_discarded()) {
    error = fmt::format("{} printed no JSON (exit {})", python, r.exit_code);
    return nullptr;
  }
  return j;
}

std::string text(const nlohmann::json& j, const char* key) {
  if (!j.is_object()) return "";
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::vector<std::string> nvcc_archs(const std::string& nvcc) {
  ProcessSpec spec;
  spec.argv = {nvcc, "--list-gpu-arch"};
  spec.capture_stdout = true;
  spec.timeout_s = 60;
  ProcessResult r = run_process(spec);
  std::vector<std::string> archs;
  static const std::regex re(R"(compute_(\d+[af]?))");
  for (auto it = std::sregex_iterator(r.stdout_text.begin(), r.stdout_text.end(), re); it != std::sregex_iterator(); ++it)
    archs.push_back((*it)[1]);
  return archs;
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

}  // namespace

DoctorReport run_doctor(const DoctorInputs& in) {
  DoctorReport rep;
  nlohmann::json env;
  std::string python = in.python;
  if (python.empty()) {
    const char* p = std::getenv("OPMATRIX_PYTHON");
    python = p && *p ? p : "python3";
  }
  std::string error;
  env["python"] = {{"executable", python}};
  env["probe"] = run_python_json(python, kProbePy, error);
  if (!error.empty()) env["python"]["error"] = error;
  error.clear();
  env["torchvision_view"] = run_python_json(python, kTorchvisionPy, error);
  const std::string root = text(env["probe"], "cuda_root");
  const std::string nvcc = root.empty() ? "nvcc" : root + "/bin/nvcc";
  if (!text(env["probe"], "nvcc").empty()) {
    env["nvcc_path"] = nvcc;
    env["nvcc_archs"] = nvcc_archs(nvcc);
  }
  env["gpu"] = gpu_info();
  if (!in.libtorch.empty()) {
    LibtorchFacts f = inspect_libtorch(in.libtorch);
    env["libtorch"] = {{"root", f.root}, {"version", f.version}, {"has_cuda", f.has_cuda}, {"cmake_prefix", f.cmake_prefix},
                       {"error", f.error}};
    env["libtorch"]["cxx11_abi"] = f.cxx11_abi ? nlohmann::json(*f.cxx11_abi) : nlohmann::json(nullptr);
  }
  rep.environment = env;
  rep.findings = doctor_findings(env);
  return rep;
}

std::vector<DoctorFinding> doctor_findings(const nlohmann::json& env) {
  std::vector<DoctorFinding> out;
  const nlohmann::json probe = env.value("probe", nlohmann::json());
  const nlohmann::json tv = env.value("torchvision_view", nlohmann::json());
  const nlohmann::json gpu = env.value("gpu", nlohmann::json::object());
  const std::string torch = text(probe, "torch");
  const std::string torch_cuda = text(probe, "torch_cuda");
  const std::string tv_cuda = text(tv, "torchvision_cuda");
  const std::string nvcc = text(probe, "nvcc");
  const bool tv_ok = tv.is_object() && tv.value("import_ok", false);
  auto has = [&](const char* op, const char* key) {
    if (!tv.is_object()) return false;
    const nlohmann::json keys = tv.value("ops", nlohmann::json::object()).value(op, nlohmann::json::object());
    auto it = keys.find(key);
    return it != keys.end() && it->is_boolean() && it->get<bool>();  // null: could not be asked
  };

  {
    DoctorFinding f{"cuda_backend", false, "Could not run 'torchvision::nms' with arguments from the 'CUDA' backend", "", ""};
    if (torch.empty()) f.detail = "no torch found";
    else if (torch_cuda.empty()) f.detail = "torch has no CUDA, so no CUDA tensors reach torchvision";
    else if (!tv_ok) { f.applies = true; f.detail = "torch has CUDA " + torch_cuda + " but torchvision does not import"; }
    else if (!has("nms", "CUDA")) { f.applies = true; f.detail = "torch has CUDA " + torch_cuda + ", torchvision::nms has no CUDA kernel"; }
    else f.detail = "torchvision::nms has a CUDA kernel";
    f.fix = "pip install the torchvision wheel built for this torch and CUDA (same index and version pairing as torch)";
    out.push_back(f);
  }
  {
    DoctorFinding f{"gpu_arch", false, "nvrtc: error: invalid value for --gpu-architecture (-arch)", "", ""};
    const auto archs = env.value("nvcc_archs", std::vector<std::string>{});
    if (!gpu.value("present", false)) {
      f.detail = fmt::format("no GPU here ({}); nvcc {} targets sm_{}", gpu.value("reason", "?"), nvcc.empty() ? "none" : nvcc,
                             archs.empty() ? std::string("-") : fmt::format("{}", fmt::join(archs, " sm_")));
    } else {
      std::string cap = gpu.value("compute_cap", "");
      cap.erase(std::remove(cap.begin(), cap.end(), '.'), cap.end());
      const bool listed = std::find(archs.begin(), archs.end(), cap) != archs.end();
      f.applies = !archs.empty() && !listed;
      f.detail = fmt::format("GPU {} is sm_{}; nvcc {} {} it", gpu.value("name", "?"), cap, nvcc.empty() ? "(none)" : nvcc,
                             listed ? "targets" : "cannot target");
    }
    f.fix = "use a CUDA toolkit that supports the GPU (sm_100/sm_120 need CUDA 12.8+, CUDA 13 dropped sm_70 and older)";
    out.push_back(f);
  }
  {
    DoctorFinding f{"meta_kernel", false,
                    "Unhandled FakeTensor Device Propagation for torchvision.deform_conv2d.default", "", ""};
    if (!tv_ok) f.detail = "torchvision does not import here";
    else if (!has("deform_conv2d", "Meta")) { f.applies = true; f.detail = "torchvision::deform_conv2d has no Meta kernel: torch.compile / FakeTensor / export fail on it"; }
    else f.detail = "torchvision::deform_conv2d has a Meta kernel";
    f.fix = "use a torchvision that registers Meta kernels (0.16+ registers them from Python on import)";
    out.push_back(f);
  }
  {
    DoctorFinding f{"undefined_symbol", false, "ImportError: …_C.so: undefined symbol: …", "", ""};
    const std::string err = text(tv, "error");
    const std::string syms = undefined_symbols_in(err);
    if (!syms.empty()) { f.applies = true; f.detail = "torchvision's extension does not load: undefined symbol " + syms; }
    else f.detail = tv_ok ? "torchvision's extension loads" : (err.empty() ? "no torchvision" : err);
    if (env.contains("libtorch") && probe.is_object() && probe.contains("cxx11_abi") &&
        env["libtorch"]["cxx11_abi"].is_boolean() && probe["cxx11_abi"].is_boolean() &&
        env["libtorch"]["cxx11_abi"] != probe["cxx11_abi"]) {
      f.applies = true;
      f.detail += fmt::format("; the LibTorch at {} uses _GLIBCXX_USE_CXX11_ABI={} but python's torch uses {}: an extension "
                              "built against one fails to load in the other",
                              env["libtorch"].value("root", ""), env["libtorch"]["cxx11_abi"].get<bool>() ? 1 : 0,
                              probe["cxx11_abi"].get<bool>() ? 1 : 0);
    }
    f.fix = "rebuild the extension against the torch it is loaded into (same version, same C++ ABI)";
    out.push_back(f);
  }
  {
    DoctorFinding f{"torch_without_cuda", false, "AssertionError: Torch not compiled with CUDA enabled", "", ""};
    if (torch.empty()) f.detail = "no torch found";
    else if (!torch_cuda.empty()) f.detail = "torch has CUDA " + torch_cuda;
    else if (!nvcc.empty() || gpu.value("present", false)) {
      f.applies = true;
      f.detail = fmt::format("torch {} is CPU-only although {} is here: CUDA extensions build CPU-only or fail, "
                             ".cuda() raises", torch, !nvcc.empty() ? "nvcc " + nvcc : std::string("a GPU"));
    } else f.detail = "CPU-only torch on a machine without CUDA: consistent";
    f.fix = "install a CUDA build of torch (PyPI's default Linux wheel) to use the GPU";
    out.push_back(f);
  }
  {
    DoctorFinding f{"cuda_versions", false, "The detected CUDA version mismatches the version that was used to compile PyTorch",
                    "", ""};
    std::vector<std::string> problems;
    if (!torch_cuda.empty() && !tv_cuda.empty() && major_minor(torch_cuda) && major_minor(tv_cuda) &&
        (major_minor(torch_cuda)->major != major_minor(tv_cuda)->major ||
         major_minor(torch_cuda)->minor != major_minor(tv_cuda)->minor))
      problems.push_back("torchvision CUDA " + tv_cuda + " vs torch CUDA " + torch_cuda);
    if (!torch_cuda.empty() && !nvcc.empty() && !same_major(torch_cuda, nvcc))
      problems.push_back("nvcc " + nvcc + " vs torch CUDA " + torch_cuda + " (another major version)");
    f.applies = !problems.empty();
    f.detail = problems.empty() ? "no CUDA version disagreement found" : fmt::format("{}", fmt::join(problems, "; "));
    f.fix = "use an nvcc of torch's CUDA major version, and torchvision built for torch's CUDA";
    out.push_back(f);
  }
  return out;
}

nlohmann::json doctor_json(const DoctorReport& report) {
  nlohmann::json j;
  j["environment"] = report.environment;
  j["findings"] = nlohmann::json::array();
  for (const auto& f : report.findings)
    j["findings"].push_back({{"id", f.id}, {"applies", f.applies}, {"title", f.title}, {"detail", f.detail}, {"fix", f.fix}});
  return j;
}

std::string format_doctor_text(const DoctorReport& report) {
  const auto& env = report.environment;
  const nlohmann::json probe = env.value("probe", nlohmann::json());
  const nlohmann::json tv = env.value("torchvision_view", nlohmann::json());
  const nlohmann::json gpu = env.value("gpu", nlohmann::json::object());
  auto or_none = [](const std::string& s) { return s.empty() ? std::string("none") : s; };
  std::string out = "opmatrix doctor\n";
  out += fmt::format("  python       {}{}\n", env["python"].value("executable", ""),
                     env["python"].contains("error") ? " (" + env["python"].value("error", "") + ")" : "");
  if (probe.is_object() && !text(probe, "torch").empty()) {
    const bool abi = probe.value("cxx11_abi", true);
    out += fmt::format("  torch        {} · CUDA {} · C++ ABI _GLIBCXX_USE_CXX11_ABI={} · cmake prefix {}\n", text(probe, "torch"),
                       or_none(text(probe, "torch_cuda")), abi ? 1 : 0, or_none(text(probe, "torch_cmake_prefix")));
  } else {
    out += "  torch        not importable\n";
  }
  if (tv.is_object() && tv.value("import_ok", false)) {
    std::vector<std::string> cuda_ops;
    const nlohmann::json ops = tv.value("ops", nlohmann::json::object());  // outlives the loop
    for (const auto& [op, keys] : ops.items())
      if (keys.value("CUDA", false)) cuda_ops.push_back(op);
    out += fmt::format("  torchvision  {} · CUDA {} · ops with CUDA kernels: {}\n", text(tv, "torchvision"),
                       or_none(text(tv, "torchvision_cuda")),
                       cuda_ops.empty() ? std::string("none") : fmt::format("{}", fmt::join(cuda_ops, ", ")));
  } else {
    out += fmt::format("  torchvision  {}\n", tv.is_object() && !text(tv, "error").empty() ? text(tv, "error") : "none");
  }
  const auto archs = env.value("nvcc_archs", std::vector<std::string>{});
  out += fmt::format("  nvcc         {}{}\n", or_none(text(probe, "nvcc")),
                     archs.empty() ? std::string() : fmt::format(" ({}) · targets sm_{}", env.value("nvcc_path", ""),
                                                                 fmt::join(archs, " sm_")));
  if (gpu.value("present", false))
    out += fmt::format("  GPU          {} · sm_{} · driver {}\n", gpu.value("name", ""), gpu.value("compute_cap", ""),
                       gpu.value("driver", ""));
  else
    out += fmt::format("  GPU          none: {}\n", gpu.value("reason", ""));
  if (env.contains("libtorch")) {
    const auto& l = env["libtorch"];
    out += fmt::format("  LibTorch     {} · version {} · CUDA {} · C++ ABI {}{}\n", l.value("root", ""),
                       or_none(l.value("version", "")), l.value("has_cuda", false) ? "yes" : "no",
                       l["cxx11_abi"].is_boolean() ? (l["cxx11_abi"].get<bool>() ? "1" : "0") : "unknown",
                       l.value("error", "").empty() ? "" : " (" + l.value("error", "") + ")");
  }
  out += "\nKnown failures:\n";
  for (const auto& f : report.findings) {
    out += fmt::format("  [{}] {}\n        {}\n", f.applies ? "APPLIES" : "ok", f.title, f.detail);
    if (f.applies) out += fmt::format("        fix: {}\n", f.fix);
  }
  return out;
}

}  // namespace opmatrix
