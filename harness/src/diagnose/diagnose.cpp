#include "diagnose/diagnose.h"

#include <cxxabi.h>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <memory>
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
  static const std::regex no_lib(R"(cannot find -l(\S+))");
  static const std::regex undef_sym(R"(undefined symbol: (\S+))");
  static const std::regex compile_err(R"(^(\S+?):(\d+):(?:(\d+):)? (?:fatal )?error: (.*)$)");
  static const std::regex nvcc_err(R"(^(\S+?)\((\d+)\): error: (.*)$)");
  static const std::regex cmake_err(R"(^CMake Error(?: at (\S+):(\d+))?)");

  static const std::regex disk_full(R"(No space left on device)");
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
  } else if (find_line(f.log, cxx20, line, m)) {
    d.kind = "cxx_standard";
    d.summary = fmt::format("this torch's headers need C++{} but the op library was compiled with an older standard",
                            m[1].str());
    d.fix = fmt::format("compile with -std=c++{} (CMAKE_CXX_STANDARD {}); kernels/cmake/OpmatrixTorch.cmake picks it "
                        "when its compile check sees the #error", m[1].str(), m[1].str());
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
    d.fix = "fix the code at that line for this torch version (APIs differ between torch releases), or guard it "
            "with TORCH_VERSION_MAJOR/MINOR";
  } else if (find_line(f.log, nvcc_err, line, m)) {
    d.kind = "compile_error";
    d.summary = fmt::format("CUDA compile error in {}:{}: {}", m[1].str(), m[2].str(), m[3].str());
    d.fix = "fix the CUDA code at that line for this toolkit/torch (nvcc and host compiler versions must agree)";
  } else if (find_line(f.log, newer_libstdcxx, line, m)) {
    d.kind = "libstdcxx_mismatch";
    d.summary = fmt::format("link error: {} comes from a newer libstdc++ than the one on the link path — C++ was "
                            "compiled by a newer g++ than the CUDA host compiler whose library folder the link uses "
                            "(e.g. g++ 14 next to nvcc 12.4's g++ 13)", m[1].str());
    d.fix = "compile the C++ with the CUDA host compiler too (-DCMAKE_CXX_COMPILER=g++-13, or CXX=g++-13 in the image), "
            "or a CUDA toolkit that supports the default g++";
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
