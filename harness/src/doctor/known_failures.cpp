#include "doctor/known_failures.h"

#include <algorithm>

#include <fmt/format.h>

#include "diagnose/diagnose.h"
#include "matrix/versions.h"
#include "util/json_fields.h"

namespace opmatrix::doctor {

namespace {

// What every judge reads: the environment, its facts and run's checks on them.
struct Judged {
  const nlohmann::json& env;
  const Facts& f;
  const std::vector<CheckResult>& checks;
  const CheckResult* tv_check;  // check_torchvision's, or nullptr
  std::string tv_kind;          // its diagnosis's kind, or ""
};

// A finding that needs what `script` would have found, and it did not run to the end.
void mark_unknown(const Judged& in, DoctorFinding& d, const char* script) {
  const nlohmann::json s = member(member(in.env, "scripts"), script);
  const std::string error = json_text(s, "error");
  d.known = false;
  d.detail = fmt::format("unknown: {} (see Scripts above)", error.empty() ? std::string(script) + " did not run" : error);
}

bool same_major(const std::string& a, const std::string& b) {
  auto x = major_minor(a), y = major_minor(b);
  return x && y && x->major == y->major;
}

// check_torchvision's verdict: torch has CUDA, torchvision imports, and nms has no CUDA kernel
// or torchvision's CUDA differs from torch's.
void judge_cuda_backend(const Judged& in, DoctorFinding& d) {
  const Facts& f = in.f;
  if (!f.view_known) mark_unknown(in, d, kTorchvision);
  else if (!f.torch_imports) d.detail = "torch does not import here";
  else if (f.torch_cuda.empty()) d.detail = "torch has no CUDA, so no CUDA tensors reach torchvision";
  else if (!f.tv_installed) d.detail = "no torchvision here";
  else if (!f.tv_imports) d.detail = "torchvision does not import here (see the import items below)";
  else if (in.tv_check && is_bad(in.tv_check->status) && (in.tv_kind == "not_registered" || in.tv_kind == "cuda_mismatch")) {
    d.applies = true;
    d.detail = in.tv_check->diagnosis->summary;
    d.fix = in.tv_check->diagnosis->fix;
  } else {
    d.detail = fmt::format("torchvision::nms has a CUDA kernel; torchvision CUDA {} = torch CUDA {}",
                           json_text(f.view, "torchvision_cuda"), f.torch_cuda);
  }
  if (d.fix.empty())
    d.fix = "pip install the torchvision wheel built for this torch and CUDA (same index and version pairing as torch)";
}

// With a GPU: whether nvcc lists its arch and NVRTC compiles for it.
std::string gpu_arch_detail(const Judged& in, DoctorFinding& d, const std::vector<std::string>& archs) {
  const Facts& f = in.f;
  std::string cap = json_text(f.gpu, "compute_cap");
  cap.erase(std::remove(cap.begin(), cap.end(), '.'), cap.end());
  const bool listed = std::find(archs.begin(), archs.end(), cap) != archs.end();
  std::vector<std::string> parts;
  if (!f.nvcc.empty()) {
    parts.push_back(fmt::format("nvcc {} {} sm_{}", f.nvcc, listed ? "targets" : "cannot target", cap));
    if (!archs.empty() && !listed) d.applies = true;
  }
  if (const CheckResult* n = find_check(in.checks, "nvrtc")) {
    parts.push_back(n->message);
    if (is_bad(n->status)) d.applies = true;
  }
  if (parts.empty()) parts.push_back("no nvcc and no NVRTC here to ask");
  return fmt::format("GPU {} is sm_{}: {}", json_text(f.gpu, "name"), cap, fmt::join(parts, "; "));
}

void judge_gpu_arch(const Judged& in, DoctorFinding& d) {
  const Facts& f = in.f;
  const auto archs = in.env.value("nvcc_archs", std::vector<std::string>{});
  const std::string targets = archs.empty() ? std::string("-") : fmt::format("{}", fmt::join(archs, " sm_"));
  if (!json_flag(f.gpu, "present")) {
    d.detail = fmt::format("no GPU here ({}); {}", f.gpu.value("reason", "?"),
                           !f.probe_known   ? std::string("nvcc unknown")
                           : f.nvcc.empty() ? std::string("no nvcc")
                                            : fmt::format("nvcc {} targets sm_{}", f.nvcc, targets));
  } else if (!f.probe_known) {
    mark_unknown(in, d, kProbe);
  } else {
    d.detail = gpu_arch_detail(in, d, archs);
  }
  d.fix = "use a CUDA toolkit that supports the GPU (sm_100/sm_120 need CUDA 12.8+, CUDA 13 dropped sm_70 and older)";
}

void judge_meta_kernel(const Judged& in, DoctorFinding& d) {
  const CheckResult* meta = find_check(in.checks, "meta", "deform_conv2d");
  if (!in.f.view_known) mark_unknown(in, d, kTorchvision);
  else if (!in.f.tv_imports) d.detail = "torchvision does not import here";
  else if (!meta) d.detail = "this torchvision has no deform_conv2d op";
  else {
    d.applies = is_bad(meta->status);
    d.detail = meta->message;
  }
  d.fix = "use a torchvision that registers Meta kernels (0.16+ registers them from Python on import)";
}

void judge_undefined_symbol(const Judged& in, DoctorFinding& d) {
  const Facts& f = in.f;
  if (!f.view_known) mark_unknown(in, d, kTorchvision);
  else if (in.tv_kind == "undefined_symbol") {
    d.applies = true;
    d.detail = "torchvision's extension does not load: undefined symbol " + undefined_symbols_in(f.tv_error);
  } else if (f.tv_imports) d.detail = "torchvision's extension loads";
  else if (!f.tv_installed) d.detail = "no torchvision here";
  else d.detail = "torchvision does not import, but not for an undefined symbol";
  // A LibTorch of another C++ ABI than python's torch: what is built against one fails in the other.
  const nlohmann::json lt = member(in.env, "libtorch");
  if (lt.is_object() && member(lt, "cxx11_abi").is_boolean() && member(f.probe, "cxx11_abi").is_boolean() &&
      lt["cxx11_abi"] != f.probe["cxx11_abi"]) {
    d.applies = true;
    d.known = true;
    d.detail += fmt::format("; the LibTorch at {} uses _GLIBCXX_USE_CXX11_ABI={} but python's torch uses {}: an "
                            "extension built against one fails to load in the other",
                            json_text(lt, "root"), lt["cxx11_abi"].get<bool>() ? 1 : 0, f.probe["cxx11_abi"].get<bool>() ? 1 : 0);
  }
  d.fix = "rebuild the extension against the torch it is loaded into (same version, same C++ ABI)";
}

void judge_torchvision_import(const Judged& in, DoctorFinding& d) {
  const Facts& f = in.f;
  if (!f.view_known) mark_unknown(in, d, kTorchvision);
  else if (!f.torch_imports) d.detail = "torch does not import here: " + f.tv_error;
  else if (f.tv_imports) d.detail = "torchvision " + json_text(f.view, "torchvision") + " imports";
  else if (!f.tv_installed) d.detail = "no torchvision here";
  else if (in.tv_kind == "undefined_symbol") d.detail = "see the undefined symbol item";
  else {
    d.applies = true;
    d.detail = f.tv_error;
    if (in.tv_check && in.tv_check->diagnosis) d.fix = in.tv_check->diagnosis->fix;
  }
  if (d.fix.empty()) d.fix = "install the torchvision built for this torch and CUDA, from the same index as torch";
}

void judge_torch_without_cuda(const Judged& in, DoctorFinding& d) {
  const Facts& f = in.f;
  if (!f.probe_known) mark_unknown(in, d, kProbe);
  else if (f.torch.empty()) d.detail = "no torch found";
  else if (!f.torch_cuda.empty()) d.detail = "torch has CUDA " + f.torch_cuda;
  else if (!f.nvcc.empty() || json_flag(f.gpu, "present")) {
    d.applies = true;
    d.detail = fmt::format("torch {} is CPU-only although {} is here: CUDA extensions build CPU-only or fail, "
                           ".cuda() raises", f.torch, !f.nvcc.empty() ? "nvcc " + f.nvcc : std::string("a GPU"));
  } else d.detail = "CPU-only torch on a machine without CUDA: consistent";
  d.fix = "install a CUDA build of torch (PyPI's default Linux wheel) to use the GPU";
}

// torch.utils.cpp_extension raises this when nvcc's major version is not torch's (a minor
// difference is a warning); torchvision's CUDA against torch's is cuda_backend's.
void judge_cuda_versions(const Judged& in, DoctorFinding& d) {
  const Facts& f = in.f;
  if (!f.probe_known) mark_unknown(in, d, kProbe);
  else if (f.torch_cuda.empty()) d.detail = "torch has no CUDA";
  else if (f.nvcc.empty()) d.detail = "no nvcc here to build CUDA extensions with";
  else if (!same_major(f.torch_cuda, f.nvcc)) {
    d.applies = true;
    d.detail = fmt::format("nvcc {} vs torch CUDA {}: another major version, so building a CUDA extension "
                           "against this torch fails",
                           f.nvcc, f.torch_cuda);
  } else d.detail = fmt::format("nvcc {} and torch CUDA {} share the major version", f.nvcc, f.torch_cuda);
  d.fix = "use an nvcc of torch's CUDA major version (or a torch built for this nvcc's CUDA)";
}

struct KnownFailure {
  const char* id;
  const char* title;  // the error users see
  void (*judge)(const Judged& in, DoctorFinding& d);  // applies, known, detail and fix
};

const KnownFailure kKnownFailures[] = {
    {"cuda_backend", "Could not run 'torchvision::nms' with arguments from the 'CUDA' backend", judge_cuda_backend},
    {"gpu_arch", "nvrtc: error: invalid value for --gpu-architecture (-arch)", judge_gpu_arch},
    {"meta_kernel", "Unhandled FakeTensor Device Propagation for torchvision.deform_conv2d.default", judge_meta_kernel},
    {"undefined_symbol", "ImportError: …_C.so: undefined symbol: …", judge_undefined_symbol},
    {"torchvision_import", "import torchvision fails (e.g. RuntimeError: operator torchvision::nms does not exist)",
     judge_torchvision_import},
    {"torch_without_cuda", "AssertionError: Torch not compiled with CUDA enabled", judge_torch_without_cuda},
    {"cuda_versions", "The detected CUDA version mismatches the version that was used to compile PyTorch",
     judge_cuda_versions},
};

}  // namespace

std::vector<DoctorFinding> findings_from(const nlohmann::json& env, const Facts& f, const std::vector<CheckResult>& checks) {
  const CheckResult* tv_check = find_check(checks, "torchvision");
  const Judged in{env, f, checks, tv_check, tv_check && tv_check->diagnosis ? tv_check->diagnosis->kind : std::string()};
  std::vector<DoctorFinding> out;
  for (const KnownFailure& k : kKnownFailures) {
    DoctorFinding d{k.id, false, true, k.title, "", ""};
    k.judge(in, d);
    out.push_back(d);
  }
  return out;
}

}  // namespace opmatrix::doctor
