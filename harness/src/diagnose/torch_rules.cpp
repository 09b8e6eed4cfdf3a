// Failures where the code and its torch disagree: an API this torch lacks or dropped, a GPU the
// build asks torch for, the C++ standard torch's headers need, a torch without CUDA.
#include <fmt/format.h>

#include "diagnose/step_rules.h"

namespace opmatrix::step_rules {

namespace {

// The torch release that introduced (or removed) a well-known Python API.
struct TorchApi {
  const char* name;
  const char* added;    // first release that has it, or nullptr
  const char* removed;  // first release without it, or nullptr
  const char* instead = nullptr;  // what older torches offer instead
};

// Each version checked against that release's documentation or release notes.
const TorchApi kTorchApis[] = {
    {"torch.library", "1.12", nullptr},
    {"torch.library.Library", "1.12", nullptr},
    {"torch.compile", "2.0", nullptr},
    {"torch.func", "2.0", nullptr},
    {"torch.vmap", "2.0", nullptr},
    {"torch.export", "2.1", nullptr},
    {"torch.float8_e4m3fn", "2.1", nullptr},
    {"torch.float8_e5m2", "2.1", nullptr},
    {"torch.library.impl_abstract", "2.2", nullptr, "torch.library.Library(ns, \"IMPL\").impl(op, fn, \"Meta\")"},
    {"torch.library.get_ctx", "2.2", nullptr},
    {"torch.library.register_fake", "2.4", nullptr, "torch.library.impl_abstract (torch 2.2, 2.3)"},
    {"torch.library.custom_op", "2.4", nullptr, "TORCH_LIBRARY in C++, or torch.library.Library"},
    {"torch.library.opcheck", "2.4", nullptr},
    {"torch.library.register_autograd", "2.4", nullptr},
    {"torch.library.register_kernel", "2.4", nullptr},
    {"torch.amp.custom_fwd", "2.4", nullptr, "torch.cuda.amp.custom_fwd"},
    {"torch.amp.custom_bwd", "2.4", nullptr, "torch.cuda.amp.custom_bwd"},
    {"torch.library.triton_op", "2.6", nullptr},
    {"torch._six", nullptr, "2.0", nullptr},
};

const TorchApi* known_torch_api(const std::string& name) {
  for (const auto& api : kTorchApis)
    if (name == api.name) return &api;
  return nullptr;
}

// setup.py raising because no GPU is visible: the exception line of a traceback that passed
// through a setup.py ("NotImplementedError: Cuda is not availabel", "RuntimeError: CUDA is not
// available", "RuntimeError: No CUDA GPUs are available"). The evidence is that setup.py's frame
// and the exception; `what` is the exception.
bool setup_needs_gpu(const std::string& log, Evidence& e) {
  static const std::regex traceback(R"(Traceback \(most recent call last\))");
  static const std::regex setup_frame(R"(File "[^"]*\bsetup\.py", line \d+)");
  static const std::regex no_gpu(
      R"(^\s*([A-Za-z_][\w.]*(?:Error|Exception)): (?:.*\bcuda\b.*\b(?:not\s+availab\w*|unavailable)|.*no cuda gpus? (?:is|are) available))",
      std::regex::icase);
  std::string seen;
  for (const auto& l : lines_of(log)) {
    if (std::regex_search(l, traceback)) seen.clear();
    if (std::regex_search(l, setup_frame)) seen = trimmed(l);
    if (!seen.empty() && std::regex_search(l, no_gpu)) {
      e.what = trimmed(l);
      e.line = seen + "\n" + e.what;
      return true;
    }
  }
  return false;
}

// A Python API of torch the code uses and this torch lacks: `what` gets its dotted name.
bool missing_torch_api(const std::string& log, Evidence& e) {
  // "AttributeError: module 'torch.library' has no attribute 'register_fake'" (not "partially
  // initialized module …", a circular import)
  static const std::regex no_attribute(R"((partially initialized )?module '(torch(?:\.[\w.]+)?)' has no attribute '(\w+)')");
  // "ImportError: cannot import name 'custom_op' from 'torch.library' (/usr/lib/…/library.py)"
  static const std::regex no_name(R"(cannot import name '(\w+)' from '(torch(?:\.[\w.]+)?)')");
  // "ModuleNotFoundError: No module named 'torch.export'"
  static const std::regex no_module(R"(No module named '(torch\.[\w.]+)')");
  for (const auto& l : lines_of(log)) {
    std::smatch m;
    if (std::regex_search(l, m, no_attribute) && !m[1].matched) {
      e.what = m[2].str() + "." + m[3].str();
    } else if (std::regex_search(l, m, no_name)) {
      e.what = m[2].str() + "." + m[1].str();
    } else if (std::regex_search(l, m, no_module) && m[1].str() != "torch._C") {
      e.what = m[1].str();
    } else {
      continue;
    }
    e.line = trimmed(l);
    return true;
  }
  return false;
}

void explain_gpu_refusal(const StepFailure&, const Evidence& e, Diagnosis& d) { explain_setup_needs_gpu(e.what, d); }

void explain_missing_torch_api(const StepFailure&, const Evidence& e, Diagnosis& d) {
  const std::string& api = e.what;
  const TorchApi* known = known_torch_api(api);
  if (known && known->removed) {
    d.kind = "torch_too_new";
    d.summary = fmt::format("needs an older torch: {} was removed in torch {}", api, known->removed);
    d.fix = fmt::format("port the code off {} (it is gone from torch {} on), or declare `torch<{}` and expect this "
                        "cell to fail", api, known->removed, known->removed);
  } else if (known) {
    d.kind = "torch_too_old";
    d.summary = fmt::format("needs a newer torch: {} first appeared in torch {}", api, known->added);
    d.fix = fmt::format("declare `torch>={}` (install_requires / the README) and expect this cell to fail (`expect:` "
                        "in matrix.yaml){}", known->added,
                        known->instead ? fmt::format(", or fall back to {} where {} is missing", known->instead, api)
                                       : std::string());
  } else if (api.find("._") != std::string::npos) {
    // A private module's name (onnxruntime-training 1.19.2's ORTModule imports
    // torch.onnx._internal.jit_utils, which torch 2.15 no longer has): private APIs move and go
    // between releases without notice, so its absence says neither "newer" nor "older".
    d.kind = "torch_private_api";
    d.summary = fmt::format("uses {}, a private torch API this torch lacks (private modules change between releases "
                            "without notice: moved or removed since, or not there yet)",
                            api);
    d.fix = fmt::format("use the release made for this torch (a private API ties a package to the torches it was "
                        "built and tested with), or port the code off {} to a public API",
                        api);
  } else {
    d.kind = "torch_too_old";
    d.summary = fmt::format("needs a newer torch: {} is an API this torch lacks", api);
    d.fix = fmt::format("find the torch release that added {} and declare `torch>=` it (install_requires / the "
                        "README), and expect this cell to fail (`expect:` in matrix.yaml); if newer torches removed "
                        "it instead, declare the upper bound", api);
  }
}

void explain_thc_header(const StepFailure&, const Evidence& e, Diagnosis& d) {
  d.kind = "torch_too_new";
  d.summary = fmt::format("needs an older torch: {} is a THC header, and torch 1.11 removed THC", e.m[1].str());
  d.fix = "port the THC calls to ATen/c10 (at::cuda::getCurrentCUDAStream, c10::cuda::CUDAGuard, at::ceil_div, "
          "c10::cuda::CUDACachingAllocator), or declare `torch<1.11` and expect this cell to fail";
  d.evidence = trimmed(e.line);
}

void explain_cxx_standard(const StepFailure& f, const Evidence& e, Diagnosis& d) {
  d.kind = "cxx_standard";
  d.summary = fmt::format("this torch's headers need C++{} but the op library was compiled with an older standard",
                          e.m[1].str());
  // The standard the build forced (setup.py's extra_compile_args, CMAKE_CXX_STANDARD) is what to
  // change: the last -std= before the error is the compile that hit it (nvcc lines may come first).
  static const std::regex std_flag(R"(-std=(?:c|gnu)\+\+(\d+))");
  const std::string before = f.log.substr(0, f.log.find(e.line));
  std::string standard;
  for (std::sregex_iterator it(before.begin(), before.end(), std_flag), end; it != end; ++it) standard = (*it)[1].str();
  const std::string where = standard.empty() ? std::string()
                                             : fmt::format("the build forces -std=c++{} (setup.py's extra_compile_args, "
                                                           "or CMAKE_CXX_STANDARD): ", standard);
  d.fix = fmt::format("{}compile with -std=c++{} or newer — torch.utils.cpp_extension adds the standard its "
                      "headers need when the build gives none, and CMake projects set CMAKE_CXX_STANDARD {} "
                      "(opmatrix's kernels/cmake/OpmatrixTorch.cmake picks it from a compile check)",
                      where, e.m[1].str(), e.m[1].str());
}

void explain_no_cuda_torch(const StepFailure&, const Evidence&, Diagnosis& d) {
  d.kind = "no_cuda_torch";
  d.summary = "the cell asks for CUDA kernels, but its torch was built without CUDA: the build would silently be "
              "CPU-only, so it fails instead";
  d.fix = "install a CUDA build of torch (the default PyPI wheel) in this cell, or declare `cuda: none`";
}

}  // namespace

const std::vector<StepRule>& torch_rules() {
  static const std::vector<StepRule> rules = {
      own_rule(setup_needs_gpu, explain_gpu_refusal),
      own_rule(missing_torch_api, explain_missing_torch_api),
      // Before compile errors (toolchain_rules): a missing THC header means torch 1.11 or newer.
      line_rule(R"(fatal error: '?(THC/[^\s:']+)'?:? (?:No such file or directory|file not found))", explain_thc_header),
      line_rule(R"(C\+\+(\d\d) or later compatible compiler is required)", explain_cxx_standard),
      // Not a warning the build went on past (evnn-pytorch 0.2.0's setup.py warns "UserWarning: Error
      // while detecting GPU architecture: Torch not compiled with CUDA enabled" and builds its CPU
      // sources).
      line_rule(R"(^(?!.*Warning: ).*?(built without CUDA|was built without CUDA|Torch not compiled with CUDA enabled))",
                explain_no_cuda_torch),
  };
  return rules;
}

}  // namespace opmatrix::step_rules

namespace opmatrix {

void explain_setup_needs_gpu(const std::string& evidence, Diagnosis& d) {
  d.kind = "setup_needs_gpu";
  d.summary = "setup.py refuses to build without a visible GPU (it tests torch.cuda.is_available() at build time): " +
              evidence;
  d.fix = "gate the CUDA build on FORCE_CUDA / CUDA_HOME (torch.utils.cpp_extension.CUDA_HOME), not on a visible GPU; "
          "build hosts and CI runners have none";
}

}  // namespace opmatrix
