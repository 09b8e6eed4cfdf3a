#include "diagnose/diagnose.h"

#include <cxxabi.h>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <regex>
#include <set>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "diagnose/step_rules.h"
#include "engine/process.h"

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

using step_rules::Evidence;
using step_rules::StepRule;

std::string last_lines(const std::string& text, std::size_t n) {
  auto lines = step_rules::lines_of(text);
  std::string out;
  for (std::size_t i = lines.size() > n ? lines.size() - n : 0; i < lines.size(); ++i) out += lines[i] + "\n";
  return out;
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

// The compilers among what a step's container still ran at its time limit (the log's listing
// under kTimeLimitListing, one command name a line), each with its count: "cc1plus ×4, ninja".
std::string compilers_still_running(const std::string& log) {
  static const std::set<std::string> compilers = {"cc1plus", "cc1", "c++", "g++", "gcc", "clang", "clang++", "nvcc",
                                                  "cicc", "ptxas", "ninja", "make", "ld", "hipcc"};
  const std::size_t at = log.rfind(kTimeLimitListing);
  if (at == std::string::npos) return "";
  std::map<std::string, int> count;
  for (const std::string& line : step_rules::lines_of(log.substr(at))) {
    const std::string name = line.substr(0, line.find_first_of(" \t"));
    if (compilers.count(name)) ++count[name];
  }
  std::vector<std::string> shown;
  for (const auto& [name, n] : count) shown.push_back(n > 1 ? fmt::format("{} ×{}", name, n) : name);
  return fmt::format("{}", fmt::join(shown, ", "));
}

Diagnosis explain_timeout(const StepFailure& f, Diagnosis d) {
  d.kind = "timeout";
  d.summary = fmt::format("the {} step ran past its limit of {:.0f} s and was stopped", f.step, f.timeout_s);
  d.fix = fmt::format("raise `timeouts: {{{}: N}}` for this cell in matrix.yaml, or find what hangs in the log", f.step);
  if (const std::string compiling = compilers_still_running(f.log); !compiling.empty()) {
    // Not a hang: it was compiling (a package whose import compiles its extension at first use:
    // torchpipe 0.2.25 beside a torch it ships no build for).
    d.summary += fmt::format(" while still compiling ({} running)", compiling);
    d.fix = fmt::format("it was compiling, not hung: raise `timeouts: {{{}: N}}` for this cell in matrix.yaml (a "
                        "package that compiles its extension at first use takes as long on its users' first import)",
                        f.step);
  }
  d.evidence = last_lines(f.log, 5);
  return d;
}

// The signal that ended the step, or 0. A container engine reports death by signal N as exit
// status 128 + N.
int ending_signal(const StepFailure& f) {
  if (f.signal != 0) return f.signal;
  const bool from_status = f.exit_code > 128 && f.exit_code < 128 + 32 &&
                           std::strcmp(signal_name(f.exit_code - 128), "a signal") != 0;
  return from_status ? f.exit_code - 128 : 0;
}

Diagnosis explain_signal(const StepFailure& f, int sig, Diagnosis d) {
  const std::string status = f.exit_code > 128 ? fmt::format(", exit status {} = 128 + {}", f.exit_code, sig) : "";
  d.evidence = last_lines(f.log, 5);
  // docs/results.md's kinds for a step ended by a signal: `crash` where the program raised it
  // itself (SIGSEGV, SIGABRT: a finding, as deterministic as a failure), `killed` for SIGKILL,
  // which comes from outside (the infrastructure's: never a result that stands).
  d.kind = sig == SIGKILL ? "killed" : "crash";
  if (sig != SIGKILL) {
    d.summary = fmt::format("the {} step died of {}{}", f.step, signal_name(sig), status);
    d.fix = "run the reproduction command and look at the end of the log (under gdb for SIGSEGV/SIGBUS)";
    return d;
  }
  // Nothing tells an out-of-memory kill from a `podman kill`: both end in SIGKILL, and the
  // container (with its cgroup's OOM counter) is gone. The memory limit is on the command line.
  static const std::regex memory_flag(R"(--memory[= ](\S+))");
  std::smatch mm;
  const std::string limit = std::regex_search(f.repro, mm, memory_flag) ? mm[1].str() : "";
  d.summary = fmt::format("the {} step was killed (SIGKILL{}): out of memory{} — or killed from outside "
                          "(podman/docker kill, the host's OOM killer)", f.step, status,
                          limit.empty() ? "" : fmt::format(" (the container may use {})", limit));
  d.fix = "if the log ends while memory grows, raise the limit (opmatrix run --memory) or fix the leak; "
          "otherwise find what killed the container and run the cell again";
  return d;
}

// Where the cell keeps a project's sources: its copy for a wheel build (build_wheel.py's
// BUILD/src) and its tests' tree (run_tests.py's). A person knows the file as `pkg/ops.cu` in
// their repository, not as the container's /build/src/pkg/ops.cu, in the summary and the fix; the
// evidence keeps the log's words.
const char* const kCellSourceFolders[] = {"/build/src/", "/build/run-tree/"};

std::string project_relative(std::string text) {
  for (const char* folder : kCellSourceFolders)
    for (std::size_t at = text.find(folder); at != std::string::npos; at = text.find(folder, at))
      text.erase(at, std::strlen(folder));
  return text;
}

// What no rule explains: the step's exit code and the end of its log.
Diagnosis explain_unrecognised(const StepFailure& f, Diagnosis d) {
  d.kind = f.step + "_failed";
  d.summary = fmt::format("the {} step failed with exit code {}", f.step, f.exit_code);
  d.fix = "read the end of the log (evidence) and run the reproduction command";
  d.evidence = last_lines(f.log, 8);
  return d;
}

}  // namespace

Diagnosis diagnose_step(const StepFailure& f) {
  Diagnosis d;
  d.repro = f.repro;
  if (f.timed_out) return explain_timeout(f, d);
  if (const int sig = ending_signal(f)) return explain_signal(f, sig, d);
  // The families in order (step_rules.h): what the image lacks before what the compiler says of it,
  // and a compile error that names a C++ API torch removed before the compile error in general.
  for (const auto* family : {&step_rules::environment_rules(), &step_rules::torch_rules(),
                             &step_rules::torch_cxx_api_rules(), &step_rules::toolchain_rules()})
    for (const StepRule& rule : *family) {
      Evidence e;
      if (!step_rules::finds(rule, f.log, e)) continue;
      d.evidence = e.line;
      rule.explain(f, e, d);
      d.summary = project_relative(d.summary);
      d.fix = project_relative(d.fix);
      return d;
    }
  return explain_unrecognised(f, d);
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
