#include "diagnose/diagnose.h"

#include <cxxabi.h>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <regex>
#include <sstream>
#include <vector>

#include <fmt/format.h>

namespace opmatrix {

std::string demangle(const std::string& symbol) {
  std::string bare = symbol.substr(0, symbol.find('@'));  // drop a symbol version
  int status = 0;
  std::unique_ptr<char, decltype(&std::free)> out(abi::__cxa_demangle(bare.c_str(), nullptr, nullptr, &status),
                                                  &std::free);
  return status == 0 && out ? std::string(out.get()) : symbol;
}

std::string undefined_symbols_in(const std::string& text, int limit) {
  static const std::regex re(R"(undefined symbol: ([A-Za-z0-9_.@$]+))");
  std::string out;
  int n = 0;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), re); it != std::sregex_iterator() && n < limit;
       ++it, ++n)
    out += (out.empty() ? "" : "; ") + demangle((*it)[1]);
  return out;
}

namespace {

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) out.push_back(line);
  return out;
}

std::string last_lines(const std::string& text, std::size_t n) {
  auto lines = lines_of(text);
  std::string out;
  for (std::size_t i = lines.size() > n ? lines.size() - n : 0; i < lines.size(); ++i) out += lines[i] + "\n";
  return out;
}

// The first line matching `re` and the match itself.
bool find_line(const std::string& text, const std::regex& re, std::string& line, std::smatch& m) {
  for (const auto& l : lines_of(text)) {
    if (std::regex_search(l, m, re)) {
      line = l;
      // regex_search's match refers into `l`; redo it on the copy that outlives this loop.
      std::regex_search(line, m, re);
      return true;
    }
  }
  return false;
}

const char* signal_name(int sig) {
  switch (sig) {
    case SIGSEGV: return "SIGSEGV (segmentation fault)";
    case SIGABRT: return "SIGABRT (abort)";
    case SIGBUS: return "SIGBUS (bus error)";
    case SIGFPE: return "SIGFPE (arithmetic exception)";
    case SIGKILL: return "SIGKILL (killed, often out of memory)";
    case SIGILL: return "SIGILL (illegal instruction)";
    default: return "a signal";
  }
}


// The text of a line without the indentation pip adds to a subprocess's output.
std::string trimmed(const std::string& s) {
  const auto b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return "";
  const auto e = s.find_last_not_of(" \t\r");
  return s.substr(b, e - b + 1);
}

// --- Python extension builds (setup.py, pip wheel) --------------------------------------------

// Something every cell image must provide for building a Python extension (docs/cell-contract.md).
struct Prerequisite {
  const char* what;     // what the image lacks, in words
  const char* install;  // how an image of one's own gets it
};

// A prerequisite the image lacks, from the first line of the log that shows it.
std::optional<Prerequisite> missing_prerequisite(const std::string& log, std::string& line) {
  // gcc: "…/python_headers.h:12:10: fatal error: Python.h: No such file or directory"
  // clang: "fatal error: 'Python.h' file not found"
  static const std::regex header(R"(fatal error: '?(Python\.h|pybind11/[^\s:']+)'?:? (?:No such file or directory|file not found))");
  // A stray dist-packages/setuptools folder without __init__.py imports as an empty namespace
  // package: "cannot import name 'find_packages' from 'setuptools' (unknown location)",
  // "module 'setuptools' has no attribute 'setup'".
  static const std::regex setuptools_namespace(
      R"((cannot import name '\w+' from 'setuptools' \(unknown location\)|module 'setuptools' has no attribute '\w+'))");
  // "No module named 'setuptools'", "No module named 'setuptools.command'" (torch's
  // cpp_extension on an empty setuptools), "/usr/bin/python3: No module named pip".
  static const std::regex no_module(R"(No module named '?(setuptools|pybind11|wheel|pip)(\.[\w.]+)?(?:'|$|\s))");
  // Without the `wheel` package, setuptools < 70.1 has no bdist_wheel command.
  static const std::regex no_bdist_wheel(R"(invalid command 'bdist_wheel')");
  std::smatch m;
  if (find_line(log, header, line, m)) {
    if (m[1].str() == "Python.h")
      return Prerequisite{"Python's C headers (Python.h)",
                          "python3-dev (Debian; for a venv, the python3-dev of the Python it was made from)"};
    return Prerequisite{"pybind11's C++ headers", "pybind11-dev (Debian; pip torch ships them in torch/include)"};
  }
  if (find_line(log, setuptools_namespace, line, m))
    return Prerequisite{"setuptools: a setuptools folder without its code imports as an empty namespace package",
                        "python3-setuptools (Debian) or `pip install setuptools`, and remove the stray setuptools "
                        "folder from site-packages/dist-packages"};
  if (find_line(log, no_module, line, m)) {
    const std::string mod = m[1].str();
    if (mod == "setuptools")
      return Prerequisite{"setuptools", "python3-setuptools (Debian) or `pip install setuptools`"};
    if (mod == "pybind11")
      return Prerequisite{"the pybind11 Python package", "python3-pybind11 (Debian) or `pip install pybind11`"};
    if (mod == "wheel")
      return Prerequisite{"the wheel package", "python3-wheel (Debian) or `pip install wheel`"};
    return Prerequisite{"pip", "python3-pip (Debian); in a venv made without pip, `python -m ensurepip`"};
  }
  if (find_line(log, no_bdist_wheel, line, m))
    return Prerequisite{"the wheel package (setuptools before 70.1 has no bdist_wheel without it)",
                        "python3-wheel (Debian) or `pip install wheel`"};
  return std::nullopt;
}

// setup.py raising because no GPU is visible: the exception line of a traceback that passed
// through a setup.py ("NotImplementedError: Cuda is not availabel", "RuntimeError: CUDA is not
// available", "RuntimeError: No CUDA GPUs are available"). `frame` is that setup.py's frame.
bool setup_needs_gpu(const std::string& log, std::string& frame, std::string& exception) {
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
      frame = seen;
      exception = trimmed(l);
      return true;
    }
  }
  return false;
}

// The torch release that introduced (or removed) a well-known Python API.
struct TorchApi {
  const char* name;
  const char* added;    // first release that has it, or nullptr
  const char* removed;  // first release without it, or nullptr
  const char* instead = nullptr;  // what older torches offer instead
};

const TorchApi* known_torch_api(const std::string& name) {
  // Each version checked against that release's documentation or release notes.
  static const TorchApi apis[] = {
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
  for (const auto& api : apis)
    if (name == api.name) return &api;
  return nullptr;
}

// A Python API of torch the code uses and this torch lacks: `api` gets its dotted name.
bool missing_torch_api(const std::string& log, std::string& line, std::string& api) {
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
      api = m[2].str() + "." + m[3].str();
    } else if (std::regex_search(l, m, no_name)) {
      api = m[2].str() + "." + m[1].str();
    } else if (std::regex_search(l, m, no_module) && m[1].str() != "torch._C") {
      api = m[1].str();
    } else {
      continue;
    }
    line = trimmed(l);
    return true;
  }
  return false;
}

}  // namespace

Diagnosis diagnose_step(const StepFailure& f) {
  Diagnosis d;
  d.repro = f.repro;
  std::string line;
  std::smatch m;
  if (f.timed_out) {
    d.kind = "timeout";
    d.summary = fmt::format("the {} step ran past its limit of {:.0f} s and was stopped", f.step, f.timeout_s);
    d.fix = fmt::format("raise `timeouts: {{{}: N}}` for this cell in matrix.yaml, or find what hangs in the log", f.step);
    d.evidence = last_lines(f.log, 5);
    return d;
  }
  // A container engine reports death by signal N as exit status 128 + N.
  const int from_status = f.signal == 0 && f.exit_code > 128 && f.exit_code < 128 + 32 &&
                                  std::strcmp(signal_name(f.exit_code - 128), "a signal") != 0
                              ? f.exit_code - 128 : 0;
  const int sig = f.signal != 0 ? f.signal : from_status;
  if (sig != 0) {
    const std::string status = f.exit_code > 128 ? fmt::format(", exit status {} = 128 + {}", f.exit_code, sig) : "";
    d.evidence = last_lines(f.log, 5);
    if (sig == SIGKILL) {
      // Nothing tells an out-of-memory kill from a `podman kill`: both end in SIGKILL, and the
      // container (with its cgroup's OOM counter) is gone. The memory limit is on the command line.
      static const std::regex memory_flag(R"(--memory[= ](\S+))");
      std::smatch mm;
      const std::string limit = std::regex_search(f.repro, mm, memory_flag) ? mm[1].str() : "";
      d.kind = "crash";  // docs/results.md's kind for a step ended by a signal
      d.summary = fmt::format("the {} step was killed (SIGKILL{}): out of memory{} — or killed from outside "
                              "(podman/docker kill, the host's OOM killer)", f.step, status,
                              limit.empty() ? "" : fmt::format(" (the container may use {})", limit));
      d.fix = "if the log ends while memory grows, raise the limit (opmatrix run --memory) or fix the leak; "
              "otherwise find what killed the container and run the cell again";
      return d;
    }
    d.kind = "crash";
    d.summary = fmt::format("the {} step died of {}{}", f.step, signal_name(sig), status);
    d.fix = "run the reproduction command and look at the end of the log (under gdb for SIGSEGV/SIGBUS)";
    return d;
  }
  static const std::regex cxx20(R"(C\+\+(\d\d) or later compatible compiler is required)");
  static const std::regex no_cuda_torch(R"((built without CUDA|was built without CUDA|Torch not compiled with CUDA enabled))");
  static const std::regex bad_arch(R"((Unsupported gpu architecture '([a-z_0-9]+)'|invalid value for --gpu-architecture))");
  static const std::regex no_nvcc(R"((No CMAKE_CUDA_COMPILER could be found|Failed to find nvcc|Could not find nvcc|no CUDA compiler))");
  static const std::regex undef_ref(R"(undefined reference to `([^']+)')");
  // Symbols only newer libstdc++ releases define (GCC 14: __cxa_call_terminate).
  static const std::regex newer_libstdcxx(R"(undefined reference to `(__cxa_call_terminate|std::__glibcxx_assert_fail[^']*)')");
  // torch's own library needs a CUDA runtime symbol the linked libcudart lacks: the toolkit's
  // cudart is older than the one the torch wheel was built with.
  static const std::regex older_cudart(R"(: (\S*lib(?:c10|torch)\S*\.so): undefined reference to `(\w+)@(libcudart\.so\.\d+)')");
  static const std::regex no_lib(R"(cannot find -l(\S+))");
  static const std::regex undef_sym(R"(undefined symbol: (\S+))");
  static const std::regex compile_err(R"(^\s*(\S+?):(\d+):(?:(\d+):)? (?:fatal )?error: (.*)$)");  // pip indents
  static const std::regex nvcc_err(R"(^\s*(\S+?)\((\d+)\): error: (.*)$)");
  static const std::regex cmake_err(R"(^CMake Error(?: at (\S+):(\d+))?)");

  static const std::regex disk_full(R"(No space left on device)");
  static const std::regex thc_header(R"(fatal error: '?(THC/[^\s:']+)'?:? (?:No such file or directory|file not found))");
  std::string frame, exception, api;
  static const std::regex missing_so(R"(error while loading shared libraries: (\S+): cannot open)");
  if (find_line(f.log, missing_so, line, m)) {
    d.kind = "missing_shared_library";
    d.summary = m[1].str() == "libcuda.so.1"
                    ? "the built programs do not start: they need libcuda.so.1, the NVIDIA driver, which this "
                      "machine does not have (this torch's CMake links the driver library into every program)"
                    : fmt::format("the built programs do not start: {} is not found", m[1].str());
    d.fix = m[1].str() == "libcuda.so.1"
                ? "run the cell on a machine with the NVIDIA driver (runner gpu), or link CUDA::cuda_driver only "
                  "where it is used"
                : "install the package that provides it, or fix the RPATH / LD_LIBRARY_PATH";
  } else if (find_line(f.log, disk_full, line, m)) {
    d.kind = "disk_full";
    d.summary = fmt::format("the {} step ran out of disk space", f.step);
    d.fix = "free disk space (podman image prune; remove old build trees under build/opmatrix/cells) and run the "
            "cell again";
  } else if (auto need = missing_prerequisite(f.log, line)) {
    // Before compile errors: "fatal error: Python.h: No such file or directory" is the image's
    // fault, not a line of the library to fix.
    d.kind = "image_missing_prerequisite";
    d.summary = fmt::format("the cell image lacks {}, which building a Python extension needs: the image's fault, "
                            "not the library's", need->what);
    d.fix = fmt::format("rebuild the cell image with the current opmatrix Containerfiles, which provide it (an edited "
                        "Containerfile gets a new image tag: `opmatrix run --images-only --cell CELL` builds it); in a "
                        "Containerfile of your own, install {}", need->install);
    line = trimmed(line);
  } else if (setup_needs_gpu(f.log, frame, exception)) {
    d.kind = "setup_needs_gpu";
    d.summary = "setup.py refuses to build without a visible GPU (it tests torch.cuda.is_available() at build time): " +
                exception;
    d.fix = "gate the CUDA build on FORCE_CUDA / CUDA_HOME (torch.utils.cpp_extension.CUDA_HOME), not on a visible GPU; "
            "build hosts and CI runners have none";
    line = frame + "\n" + exception;
  } else if (missing_torch_api(f.log, line, api)) {
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
    } else {
      d.kind = "torch_too_old";
      d.summary = fmt::format("needs a newer torch: {} is an API this torch lacks", api);
      d.fix = fmt::format("find the torch release that added {} and declare `torch>=` it (install_requires / the "
                          "README), and expect this cell to fail (`expect:` in matrix.yaml); if newer torches removed "
                          "it instead, declare the upper bound", api);
    }
  } else if (find_line(f.log, thc_header, line, m)) {
    d.kind = "torch_too_new";
    d.summary = fmt::format("needs an older torch: {} is a THC header, and torch 1.11 removed THC", m[1].str());
    d.fix = "port the THC calls to ATen/c10 (at::cuda::getCurrentCUDAStream, c10::cuda::CUDAGuard, at::ceil_div, "
            "c10::cuda::CUDACachingAllocator), or declare `torch<1.11` and expect this cell to fail";
    line = trimmed(line);
  } else if (find_line(f.log, cxx20, line, m)) {
    d.kind = "cxx_standard";
    d.summary = fmt::format("this torch's headers need C++{} but the op library was compiled with an older standard",
                            m[1].str());
    // The standard the build forced (setup.py's extra_compile_args, CMAKE_CXX_STANDARD) is what to
    // change: the last -std= before the error is the compile that hit it (nvcc lines may come first).
    static const std::regex std_flag(R"(-std=(?:c|gnu)\+\+(\d+))");
    const std::string before = f.log.substr(0, f.log.find(line));
    std::string standard;
    for (std::sregex_iterator it(before.begin(), before.end(), std_flag), end; it != end; ++it) standard = (*it)[1].str();
    const std::string where = standard.empty() ? std::string()
                                               : fmt::format("the build forces -std=c++{} (setup.py's extra_compile_args, "
                                                             "or CMAKE_CXX_STANDARD): ", standard);
    d.fix = fmt::format("{}compile with -std=c++{} or newer — torch.utils.cpp_extension adds the standard its "
                        "headers need when the build gives none, and CMake projects set CMAKE_CXX_STANDARD {} "
                        "(opmatrix's kernels/cmake/OpmatrixTorch.cmake picks it from a compile check)",
                        where, m[1].str(), m[1].str());
  } else if (find_line(f.log, no_cuda_torch, line, m)) {
    d.kind = "no_cuda_torch";
    d.summary = "the cell asks for CUDA kernels, but its torch was built without CUDA: the build would silently be "
                "CPU-only, so it fails instead";
    d.fix = "install a CUDA build of torch (the default PyPI wheel) in this cell, or declare `cuda: none`";
  } else if (find_line(f.log, bad_arch, line, m)) {
    d.kind = "unsupported_arch";
    d.summary = m[2].matched ? fmt::format("this CUDA toolkit cannot compile for {}", m[2].str())
                             : "this CUDA toolkit's NVRTC rejects the requested GPU architecture";
    d.fix = "drop that arch from this cell's cuda_archs (or expect it as xfail), or use a CUDA toolkit that "
            "supports it (sm_100/sm_120 need 12.8+, CUDA 13 dropped sm_70 and older)";
  } else if (find_line(f.log, no_nvcc, line, m)) {
    d.kind = "no_nvcc";
    d.summary = "the cell promises CUDA but no CUDA compiler was found";
    d.fix = "install the nvcc of the cell's CUDA (nvidia-cuda-nvcc-cuXX wheel or nvidia-cuda-toolkit) and set "
            "OPMATRIX_CUDA_ROOT to its toolkit root";
  } else if (find_line(f.log, compile_err, line, m)) {
    d.kind = "compile_error";
    d.summary = fmt::format("compile error in {}:{}: {}", m[1].str(), m[2].str(), m[4].str());
    static const std::regex no_header(R"(^'?([^\s:']+)'?:? (?:No such file or directory|file not found))");
    std::smatch h;
    const std::string message = m[4].str();
    if (std::regex_search(message, h, no_header))
      d.fix = fmt::format("{} is not found: install what provides it in the image (a -dev package, the CUDA toolkit) "
                          "or add its folder to the include path; if it is one of torch's own headers, this torch "
                          "release does not have it", h[1].str());
    else
      d.fix = "fix the code at that line for this torch version (APIs differ between torch releases), or guard it "
              "with TORCH_VERSION_MAJOR/MINOR";
    line = trimmed(line);
  } else if (find_line(f.log, nvcc_err, line, m)) {
    d.kind = "compile_error";
    d.summary = fmt::format("CUDA compile error in {}:{}: {}", m[1].str(), m[2].str(), m[3].str());
    line = trimmed(line);
    d.fix = "fix the CUDA code at that line for this toolkit/torch (nvcc and host compiler versions must agree)";
  } else if (find_line(f.log, newer_libstdcxx, line, m)) {
    d.kind = "libstdcxx_mismatch";
    d.summary = fmt::format("link error: {} comes from a newer libstdc++ than the one on the link path — C++ was "
                            "compiled by a newer g++ than the CUDA host compiler whose library folder the link uses "
                            "(e.g. g++ 14 next to nvcc 12.4's g++ 13)", m[1].str());
    d.fix = "compile the C++ with the CUDA host compiler too (-DCMAKE_CXX_COMPILER=g++-13, or CXX=g++-13 in the image), "
            "or a CUDA toolkit that supports the default g++";
  } else if (find_line(f.log, older_cudart, line, m)) {
    d.kind = "cudart_too_old";
    d.summary = fmt::format("link error: {} needs {} from a newer CUDA runtime ({}) than the toolkit's that the link "
                            "uses — this torch was built with a newer CUDA than the cell's nvcc",
                            m[1].str(), m[2].str(), m[3].str());
    d.fix = "link the CUDA runtime torch ships (the nvidia-cuda-runtime wheel's libcudart, as kernels/cmake/"
            "OpmatrixTorch.cmake does), or give the cell an nvcc of at least torch's CUDA version";
  } else if (find_line(f.log, undef_ref, line, m)) {
    d.kind = "link_error";
    d.summary = fmt::format("link error: undefined reference to {}", m[1].str());
    d.fix = "link the library that defines it (e.g. ${TORCH_LIBRARIES}, CUDA::cudart, c10_cuda), in the right order";
  } else if (find_line(f.log, no_lib, line, m)) {
    d.kind = "link_error";
    d.summary = fmt::format("link error: library -l{} not found", m[1].str());
    d.fix = "install the package that provides it, or point CMake at it (CMAKE_PREFIX_PATH / CUDAToolkit_ROOT)";
  } else if (find_line(f.log, undef_sym, line, m)) {
    d.kind = "undefined_symbol";
    d.summary = fmt::format("a library does not load: undefined symbol {}", demangle(m[1].str()));
    d.fix = "rebuild the extension against the torch it is loaded into (same version and _GLIBCXX_USE_CXX11_ABI)";
  } else if (find_line(f.log, cmake_err, line, m)) {
    d.kind = "configure_error";
    // CMake puts the message on the lines after "CMake Error at …".
    auto lines = lines_of(f.log);
    std::string msg;
    for (std::size_t i = 0; i < lines.size(); ++i)
      if (lines[i] == line) {
        for (std::size_t k = i + 1; k < lines.size() && k < i + 6 && !lines[k].empty(); ++k)
          msg += (msg.empty() ? "" : " ") + lines[k].substr(lines[k].find_first_not_of(' ') == std::string::npos
                                                                ? 0 : lines[k].find_first_not_of(' '));
        if (msg.empty() && i + 2 < lines.size()) msg = lines[i + 2];
        break;
      }
    d.summary = "CMake configuration failed: " + (msg.empty() ? line : msg);
    d.fix = "read the CMake error above; a missing package is usually a missing CMAKE_PREFIX_PATH or toolkit";
  } else {
    d.kind = f.step + "_failed";
    d.summary = fmt::format("the {} step failed with exit code {}", f.step, f.exit_code);
    d.fix = "read the end of the log (evidence) and run the reproduction command";
    d.evidence = last_lines(f.log, 8);
    return d;
  }
  d.evidence = line;
  return d;
}

Diagnosis diagnose_test(const TestOutcome& t, const std::string& repro) {
  Diagnosis d;
  d.repro = repro;
  d.evidence = t.message.substr(0, 2000);
  std::smatch m;
  static const std::regex not_registered(R"(Could not run '([^']+)' with arguments from the '(\w+)' backend)");
  static const std::regex missing_key(R"(no kernel for (?:dispatch )?key (\w+)|missing .*\b(CPU|CUDA|Meta|Autograd)\b kernel)",
                                      std::regex::icase);
  static const std::regex mismatch(R"(max(?:imum)? (?:abs(?:olute)? )?(?:error|diff(?:erence)?)[^0-9]*([0-9.eE+-]+))",
                                   std::regex::icase);
  if (t.status == Status::crash) {
    d.kind = "crash";
    d.summary = fmt::format("the test process crashed ({})", t.message);
    d.fix = "run the reproduction command under gdb; a crash in an op is a bug in its kernel or a torch ABI mismatch";
  } else if (t.status == Status::timeout) {
    d.kind = "timeout";
    d.summary = "the test ran past its time limit";
    d.fix = "look for an endless loop or a deadlock (e.g. a CUDA sync on a wrong stream)";
  } else if (std::regex_search(t.message, m, not_registered)) {
    d.kind = "not_registered";
    d.summary = fmt::format("{} has no {} kernel: users see \"Could not run '{}' with arguments from the '{}' backend\"",
                            m[1].str(), m[2].str(), m[1].str(), m[2].str());
    d.fix = fmt::format("build the library with its {} kernels (for CUDA: a CUDA torch and OPMATRIX_WITH_CUDA=ON) "
                        "and register them with TORCH_LIBRARY_IMPL(ns, {}, m)", m[2].str(), m[2].str());
  } else if (t.message.find("undefined symbol") != std::string::npos) {
    d.kind = "undefined_symbol";
    d.summary = "a library does not load: undefined symbol " + undefined_symbols_in(t.message);
    d.fix = "rebuild it against the torch it is loaded into (same version and _GLIBCXX_USE_CXX11_ABI)";
  } else if (std::regex_search(t.message, m, missing_key)) {
    d.kind = "not_registered";
    d.summary = "an op lacks a kernel for a dispatch key the cell promises: " + t.message.substr(0, 300);
    d.fix = "register the missing kernel with TORCH_LIBRARY_IMPL for that key";
  } else if (t.message.find("Torch not compiled with CUDA") != std::string::npos ||
             t.message.find("built without CUDA") != std::string::npos) {
    d.kind = "no_cuda_torch";
    d.summary = "the cell promises CUDA but its torch or op library has none";
    d.fix = "use a CUDA build of torch and build the ops with OPMATRIX_WITH_CUDA=ON, or declare `cuda: none`";
  } else if (std::regex_search(t.message, m, mismatch)) {
    d.kind = "numerical_mismatch";
    d.summary = fmt::format("results differ from the reference (max error {})", m[1].str());
    d.fix = "compare the kernel with the reference on the failing input; check border handling and accumulation dtype";
  } else {
    d.kind = "test_failure";
    const std::string first = t.message.substr(0, t.message.find('\n'));
    d.summary = first.empty() ? "the test failed" : "the test failed: " + first;
    d.fix = "run the reproduction command and read the assertion";
  }
  return d;
}

}  // namespace opmatrix
