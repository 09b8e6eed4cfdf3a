// What the compilers, the linker and CMake say: an arch or compiler the toolkit lacks, compile
// errors, link errors, symbols a library cannot load, a failed configure.
#include <fmt/format.h>

#include <regex>

#include "diagnose/step_rules.h"

namespace opmatrix::step_rules {

namespace {

void explain_unsupported_arch(const StepFailure&, const Evidence& e, Diagnosis& d) {
  d.kind = "unsupported_arch";
  d.summary = e.m[2].matched ? fmt::format("this CUDA toolkit cannot compile for {}", e.m[2].str())
                             : "this CUDA toolkit's NVRTC rejects the requested GPU architecture";
  d.fix = "drop that arch from this cell's cuda_archs (or expect it as xfail), or use a CUDA toolkit that "
          "supports it (sm_100/sm_120 need 12.8+, CUDA 13 dropped sm_70 and older)";
}

void explain_no_nvcc(const StepFailure&, const Evidence&, Diagnosis& d) {
  d.kind = "no_nvcc";
  d.summary = "the cell promises CUDA but no CUDA compiler was found";
  d.fix = "install the nvcc of the cell's CUDA (nvidia-cuda-nvcc-cuXX wheel or nvidia-cuda-toolkit) and set "
          "OPMATRIX_CUDA_ROOT to its toolkit root";
}

void explain_compile_error(const StepFailure& f, const Evidence& e, Diagnosis& d) {
  d.kind = "compile_error";
  d.summary = fmt::format("compile error in {}:{}: {}", e.m[1].str(), e.m[2].str(), e.m[4].str());
  static const std::regex no_header(R"(^'?([^\s:']+)'?:? (?:No such file or directory|file not found))");
  // gcc names the standard header a name needs: "note: 'std::unique_ptr' is defined in header
  // '<memory>'; this is probably fixable by adding '#include <memory>'" (torch-points-kernels on
  // trixie: the headers it includes no longer bring <memory> in for it).
  static const std::regex needs_include(R"(is defined in header (?:‘|')<([^>]+)>(?:’|'); this is probably fixable)");
  std::smatch h;
  const std::string message = e.m[4].str();
  if (std::regex_search(f.log, h, needs_include))
    d.fix = fmt::format("add #include <{}> to {}: the code uses a name from that standard header without including "
                        "it, and the headers it does include here (this torch's, this compiler's) no longer bring it "
                        "in", h[1].str(), e.m[1].str());
  else if (std::regex_search(message, h, no_header))
    d.fix = fmt::format("{} is not found: install what provides it in the image (a -dev package, the CUDA toolkit) "
                        "or add its folder to the include path; if it is one of torch's own headers, this torch "
                        "release does not have it", h[1].str());
  else
    d.fix = "fix the code at that line for this torch version (APIs differ between torch releases), or guard it "
            "with TORCH_VERSION_MAJOR/MINOR";
  d.evidence = trimmed(e.line);
}

void explain_nvcc_error(const StepFailure&, const Evidence& e, Diagnosis& d) {
  d.kind = "compile_error";
  d.summary = fmt::format("CUDA compile error in {}:{}: {}", e.m[1].str(), e.m[2].str(), e.m[3].str());
  d.evidence = trimmed(e.line);
  // A host compiler nvcc does not support has its own words (explain_unsupported_host_compiler):
  // an error at a line of the code is about the code, and torch's C++ API is what most often moves.
  d.fix = "fix the CUDA code at that line for this torch (its C++ API differs between releases) and this CUDA "
          "toolkit, or guard it with TORCH_VERSION_MAJOR/MINOR or CUDA_VERSION";
}

// nvcc's crt/host_config.h refuses a gcc newer than its CUDA release supports: "#error --
// unsupported GNU version! gcc versions later than 12 are not supported!". The gcc the build gave
// nvcc is in CMake's words (the CUDA host compiler before the C++ compiler) or gcc's, where the log
// has them.
std::string host_gcc_version(const std::string& log) {
  static const std::regex said[] = {
      std::regex(R"(The CUDA host compiler identification is GNU (\d+))"),
      std::regex(R"(The CXX compiler identification is GNU (\d+))"),
      std::regex(R"(\bgcc version (\d+))"),
  };
  std::smatch m;
  for (const auto& re : said)
    if (std::regex_search(log, m, re)) return m[1].str();
  return "";
}

void explain_unsupported_host_compiler(const StepFailure& f, const Evidence& e, Diagnosis& d) {
  const std::string used = host_gcc_version(f.log);
  d.kind = "unsupported_host_compiler";
  d.summary = fmt::format("this CUDA toolkit's nvcc does not support the host compiler{}: it takes gcc up to {}",
                          used.empty() ? "" : " (gcc " + used + ")", e.m[1].str());
  d.fix = fmt::format("give nvcc gcc {} or older as its host compiler (-ccbin g++-{}, CUDAHOSTCXX or "
                      "CMAKE_CUDA_HOST_COMPILER), or use a CUDA toolkit that supports gcc{}", e.m[1].str(),
                      e.m[1].str(), used.empty() ? "" : " " + used);
  d.evidence = trimmed(e.line);
}

void explain_libstdcxx_mismatch(const StepFailure&, const Evidence& e, Diagnosis& d) {
  d.kind = "libstdcxx_mismatch";
  d.summary = fmt::format("link error: {} comes from a newer libstdc++ than the one on the link path — C++ was "
                          "compiled by a newer g++ than the CUDA host compiler whose library folder the link uses "
                          "(e.g. g++ 14 next to nvcc 12.4's g++ 13)", e.m[1].str());
  d.fix = "compile the C++ with the CUDA host compiler too (-DCMAKE_CXX_COMPILER=g++-13, or CXX=g++-13 in the image), "
          "or a CUDA toolkit that supports the default g++";
}

void explain_cudart_too_old(const StepFailure&, const Evidence& e, Diagnosis& d) {
  d.kind = "cudart_too_old";
  d.summary = fmt::format("link error: {} needs {} from a newer CUDA runtime ({}) than the toolkit's that the link "
                          "uses — this torch was built with a newer CUDA than the cell's nvcc",
                          e.m[1].str(), e.m[2].str(), e.m[3].str());
  d.fix = "link the CUDA runtime torch ships (the nvidia-cuda-runtime wheel's libcudart, as kernels/cmake/"
          "OpmatrixTorch.cmake does), or give the cell an nvcc of at least torch's CUDA version";
}

void explain_undefined_reference(const StepFailure&, const Evidence& e, Diagnosis& d) {
  d.kind = "link_error";
  d.summary = fmt::format("link error: undefined reference to {}", e.m[1].str());
  d.fix = "link the library that defines it (e.g. ${TORCH_LIBRARIES}, CUDA::cudart, c10_cuda), in the right order";
}

void explain_missing_library(const StepFailure&, const Evidence& e, Diagnosis& d) {
  d.kind = "link_error";
  d.summary = fmt::format("link error: library -l{} not found", e.m[1].str());
  d.fix = "install the package that provides it, or point CMake at it (CMAKE_PREFIX_PATH / CUDAToolkit_ROOT)";
}

void explain_undefined_symbol(const StepFailure&, const Evidence& e, Diagnosis& d) {
  d.kind = "undefined_symbol";
  d.summary = fmt::format("a library does not load: undefined symbol {}", demangle(e.m[1].str()));
  d.fix = "rebuild the extension against the torch it is loaded into (same version and _GLIBCXX_USE_CXX11_ABI)";
}

// CMake puts the message on the (indented) lines after "CMake Error at …": up to five of them,
// joined, up to its call stack or a blank line (pip indents them all: a blank is spaces alone);
// else the line two below.
std::string cmake_message_after(const std::string& log, const std::string& error_line) {
  auto lines = lines_of(log);
  std::string msg;
  for (std::size_t i = 0; i < lines.size(); ++i)
    if (lines[i] == error_line) {
      for (std::size_t k = i + 1; k < lines.size() && k < i + 6; ++k) {
        const std::string line = trimmed(lines[k]);
        if (line.empty() || line.rfind("Call Stack", 0) == 0) break;
        msg += (msg.empty() ? "" : " ") + line;
      }
      if (msg.empty() && i + 2 < lines.size()) msg = trimmed(lines[i + 2]);
      break;
    }
  return msg;
}

// torch before 2.7 parses TORCH_CUDA_ARCH_LIST with one-digit majors only (its
// select_compute_arch.cmake): a project's CMake that hands it 10.0 or 12.0, which CUDA 12.8+ and
// 13 target, stops at configure whatever the nvcc.
void explain_torch_cmake_unknown_arch(const StepFailure&, const Evidence& e, Diagnosis& d) {
  d.kind = "torch_cmake_unknown_arch";
  d.summary = fmt::format("this torch's CMake (select_compute_arch.cmake) cannot parse the CUDA arch {}: before "
                          "torch 2.7 it knows one-digit majors only",
                          e.m[1].str());
  d.fix = "leave that arch out of TORCH_CUDA_ARCH_LIST for this torch and name it in CMAKE_CUDA_ARCHITECTURES of "
          "your own targets, or build with torch 2.7 or newer for sm_100 and sm_120";
}

void explain_configure_error(const StepFailure& f, const Evidence& e, Diagnosis& d) {
  d.kind = "configure_error";
  const std::string msg = cmake_message_after(f.log, e.line);
  const std::string at = e.m[1].matched ? " at " + e.m[1].str() + ":" + e.m[2].str() : "";
  d.summary = "CMake configuration failed" + at + ": " + (msg.empty() ? trimmed(e.line) : msg);
  d.evidence = trimmed(e.line) + (msg.empty() ? "" : " " + msg);
  d.fix = "read the CMake error above; a missing package is usually a missing CMAKE_PREFIX_PATH or toolkit";
}

// The build runs a program no part of the cell has: a compiler wrapper setup.py sets (mpi4torch
// 0.1.3's mpicc, which ccache cannot find), a tool it calls by name. The program, in e.m[1..3].
void explain_missing_program(const StepFailure&, const Evidence& e, Diagnosis& d) {
  const std::string program = e.m[1].matched ? e.m[1].str() : e.m[2].matched ? e.m[2].str() : e.m[3].str();
  d.kind = "missing_program";
  d.summary = "the build runs " + program + ", a program this image does not have";
  d.fix = "install what provides " + program + " in the image (on Debian, apt-file search bin/" + program +
          " names the package)";
  d.evidence = trimmed(e.line);
}

// setup.py importing, at its top, a module the build does not have (deform-conv 0.0.0: `from
// Cython.Build import cythonize`, no pyproject.toml): the cell builds with the build requirements
// the project declares (build_requires.py), as pip's isolated build of a user's install does, so
// a module neither declares nor torch brings fails theirs alike. The image's own prerequisites
// (setuptools, pybind11, wheel, pip) are the environment rules', tried first.
bool find_undeclared_build_module(const std::string& log, Evidence& e) {
  static const std::regex setup_frame(R"(File "[^"]*setup\.py", line \d+)");
  static const std::regex no_module(R"(ModuleNotFoundError: No module named '([\w.]+)')");
  const std::size_t frame = [&] {
    std::smatch m;
    return std::regex_search(log, m, setup_frame) ? static_cast<std::size_t>(m.position(0)) : std::string::npos;
  }();
  if (frame == std::string::npos) return false;
  return find_line(log.substr(frame), no_module, e.line, e.m);
}

void explain_undeclared_build_module(const StepFailure&, const Evidence& e, Diagnosis& d) {
  const std::string module = e.m[1].str();
  const std::string top = module.substr(0, module.find('.'));
  if (top != module) {
    // Python names the dotted module only when its package imported: the package is there and lacks
    // it (MinkowskiEngine 0.5.4: numpy.distutils, gone from NumPy 2 and from Python 3.12 on).
    d.kind = "build_module_removed";
    d.summary = "setup.py imports " + module + ", which the installed " + top + " does not have (its newer "
                "releases removed it): the build cannot run with this " + top;
    d.fix = "port setup.py off " + module + " (numpy.distutils: setuptools and torch.utils.cpp_extension do its "
            "work); meanwhile it builds only with a " + top + " (and Python) that still ship it";
    return;
  }
  d.kind = "undeclared_build_requirement";
  d.summary = "setup.py imports " + module + ", which the project does not declare as a build requirement "
              "(pyproject.toml's [build-system] requires): a user's pip install, which builds in isolation, fails alike";
  d.fix = "declare " + top + " in pyproject.toml's [build-system] requires; meanwhile its users: pip install " + top +
          ", then pip install --no-build-isolation with the project";
}

// The exception a setup.py raised, at its own innermost frame: "setup.py:43 (get_version): `return
// locals()['__version__']` raised KeyError: '__version__'". The last rule: anything that says more
// about the failure comes first.
bool find_setup_py_exception(const std::string& log, Evidence& e) {
  static const std::regex frame(R"re(File "[^"]*/(setup\.py)", line (\d+), in (\S+)\n\s*([^\n]*))re");
  static const std::regex exception(R"(^\s*((?:[A-Za-z_][\w.]*)?(?:Error|Exception|Exit)(?:: [^\n]*)?)$)");
  std::string::const_iterator from = log.begin();
  std::smatch m, last;
  while (std::regex_search(from, log.end(), m, frame)) {
    last = m;
    from = m[0].second;
  }
  if (last.empty()) return false;
  std::string found;
  for (const std::string& line : lines_of(std::string(last[0].second, log.end()))) {
    std::smatch x;
    if (std::regex_match(line, x, exception)) {
      found = x[1].str();
      break;
    }
  }
  if (found.empty()) return false;
  e.line = "setup.py:" + last[2].str() + " (" + last[3].str() + "): `" + last[4].str() + "` raised " + found;
  e.what = last[4].str();
  e.how = found;
  return true;
}

void explain_setup_py_exception(const StepFailure&, const Evidence& e, Diagnosis& d) {
  static const std::regex exec_locals(R"(\blocals\(\)\s*\[)");
  if (e.how.rfind("KeyError", 0) == 0 && std::regex_search(e.what, exec_locals)) {
    // mmcv 2.2.0's get_version: exec() of its version file, then locals()['__version__'].
    d.kind = "python_semantics_changed";
    d.summary = "setup.py reads a name from locals() that exec() defined (" + e.line + "): from Python 3.13 "
                "(PEP 667) exec() no longer changes a function's locals(), so no build of it runs on this Python";
    d.fix = "exec into a namespace of its own (`ns = {}; exec(code, ns); ns['__version__']`); meanwhile it builds "
            "only on Python 3.12 and older";
    return;
  }
  d.kind = "setup_py_raised";
  d.summary = "setup.py raised: " + e.line;
  d.fix = "read setup.py at that line (the evidence) and run the reproduction command";
}

void explain_file_not_in_source(const StepFailure&, const Evidence& e, Diagnosis& d) {
  const std::string path = e.m[2].str();
  d.kind = "source_lacks_file";
  d.summary = "the build reads " + path + ", which the project's source (its sdist) does not hold: a user's pip "
              "install of it fails alike";
  d.fix = "ship " + path + " in the sdist (MANIFEST.in; a git submodule's files are left out unless it is checked "
          "out when the sdist is made: `git submodule update --init` before `python -m build --sdist`)";
}

}  // namespace

const std::vector<StepRule>& toolchain_rules() {
  static const std::vector<StepRule> rules = {
      line_rule(R"((Unsupported gpu architecture '([a-z_0-9]+)'|invalid value for --gpu-architecture))",
                explain_unsupported_arch),
      // Not CMake's status lines ("-- Could not find nvcc, please set CUDAToolkit_ROOT."): a probe for
      // an optional CUDA that the build goes on without (horovod 0.28.1).
      line_rule(R"(^(?!\s*-- ).*?(No CMAKE_CUDA_COMPILER could be found|Failed to find nvcc|Could not find nvcc|no CUDA compiler))",
                explain_no_nvcc),
      // Before compile errors: host_config.h's #error is one, at a line of the toolkit's header.
      line_rule(R"(unsupported GNU version! gcc versions later than (\d+))",
                explain_unsupported_host_compiler),
      line_rule(R"(^\s*(\S+?):(\d+):(?:(\d+):)? (?:fatal )?error: (.*)$)", explain_compile_error),  // pip indents
      line_rule(R"(^\s*(\S+?)\((\d+)\): error: (.*)$)", explain_nvcc_error),
      // Before any undefined reference: symbols only newer libstdc++ releases define (GCC 14:
      // __cxa_call_terminate).
      line_rule(R"(undefined reference to `(__cxa_call_terminate|std::__glibcxx_assert_fail[^']*)')",
                explain_libstdcxx_mismatch),
      // torch's own library needs a CUDA runtime symbol the linked libcudart lacks: the toolkit's
      // cudart is older than the one the torch wheel was built with.
      line_rule(R"(: (\S*lib(?:c10|torch)\S*\.so): undefined reference to `(\w+)@(libcudart\.so\.\d+)')",
                explain_cudart_too_old),
      line_rule(R"(undefined reference to `([^']+)')", explain_undefined_reference),
      line_rule(R"(cannot find -l(\S+))", explain_missing_library),
      line_rule(R"(undefined symbol: (\S+))", explain_undefined_symbol),
      line_rule(R"(Unknown CUDA Architecture Name (\S+) in CUDA_SELECT_NVCC_ARCH_FLAGS)",
                explain_torch_cmake_unknown_arch),
      line_rule(R"re(ccache: error: Could not find compiler "([^"]+)" in PATH|unable to execute '([^'/]+)': No such )re"
                R"re(file or directory|error: command '([^'/]+)' failed: No such file or directory)re",
                explain_missing_program),
      // pip indents the build's output, CMake's words too.
      line_rule(R"(^\s*CMake Error(?: at (\S+):(\d+))?)", explain_configure_error),
      own_rule(find_undeclared_build_module, explain_undeclared_build_module),
      // deep-gemm 1.0.0: "[Errno 2] No such file or directory: '/build/src/third-party/cutlass/include/cute'"
      // (a submodule its sdist lacks); marlin-kernels 0.3.7: '/build/src/envs.py'. The cell's copy of
      // the project is /build/src/ (build_wheel.py).
      line_rule(R"((No such file or directory|FileNotFoundError)[^']*'/build/src/([^']+)')", explain_file_not_in_source),
      // fairseq 0.12.2 lists fairseq/clib/libbase/balanced_assignment.cpp in setup.py, its sdist lacks it:
      // "ninja: error: '/build/src/…', needed by '…', missing and no known rule to make it".
      line_rule(R"((ninja: error): '/build/src/([^']+)', needed by [^\n]*missing and no known rule)",
                explain_file_not_in_source),
      own_rule(find_setup_py_exception, explain_setup_py_exception),
  };
  return rules;
}

}  // namespace opmatrix::step_rules
