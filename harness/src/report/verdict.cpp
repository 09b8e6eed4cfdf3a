#include "report/verdict.h"

#include <algorithm>
#include <map>
#include <regex>
#include <set>

#include <fmt/format.h>

#include "checks/fatbin/fatbin_judge.h"
#include "checks/registry.h"
#include "checks/script/script_judge.h"
#include "report/library_findings.h"
#include "report/render.h"
#include "report/results_set.h"
#include "util/cuda_arch.h"

namespace opmatrix {

namespace {

// The part of a message a table cell can hold: its first line (a test's own words where it
// starts with its file:line), cut at a word with an ellipsis past `limit` characters. Never cut
// at the first ": " (the cause's why comes after it: "CUDA promised, built CPU-only: no built
// library holds device code").
std::string headline(const std::string& message, std::size_t limit = 110) {
  std::string s = message.substr(0, message.find('\n'));
  // A test's failure starts with its file:line; what the test says comes last.
  static const std::regex location(R"(^\S+:\d+$)");
  if (std::regex_match(s, location)) {
    const auto end = message.find_last_not_of("\n ");
    const auto start = message.rfind('\n', end);
    if (end != std::string::npos && start != std::string::npos) s = message.substr(start + 1, end - start);
  }
  if (s.size() <= limit) return s;
  // Only ever between words: a cut inside a token (a number, a path, a symbol) changes the fact
  // ("ms_deform_attn_cuda.cu:65" is not "…cu:6"). A token that crosses the limit is left out
  // whole; the cell's section has the message in full.
  auto cut = s.rfind(' ', limit);
  if (cut == std::string::npos) return s;
  while (cut > 0 && (s[cut - 1] == ' ' || s[cut - 1] == ',' || s[cut - 1] == ';')) --cut;
  return s.substr(0, cut) + " …";
}

std::string broken_reason(const CheckResult& c) {
  // A declared break reads as what its maintainers declared; any other as what was measured.
  const std::string& said = c.status == Status::xfail && !c.expected_reason.empty() ? c.expected_reason : c.message;
  const std::string head = headline(said.empty() ? to_string(c.status) : said);
  // Messages that start with the op already say whose result it is.
  if (c.op.empty() || head.rfind(c.op, 0) == 0) return head;
  return fmt::format("{}: {}", check_label(c), head);
}

void add_once(std::vector<std::string>& v, const std::string& s) {
  if (std::find(v.begin(), v.end(), s) == v.end()) v.push_back(s);
}

// Skips a user of the cell must know of: the ops run without what was skipped. A library whose
// build makes no compiled extension in this runtime, by design, runs its Python fallback.
// An optional backend whose system library is not installed is unusable here, the rest works.
// Test files that need a module no requirement brings did not run for want of the matrix's
// test_requires, not for the library's fault (checks/tests/collection_errors.h).
// A CUDA build that needs a visible GPU, in a cell whose build sees none: the CPU part is judged.
// A wheel that compiles its C++/CUDA code at first use (JIT): its import is judged, its ops not.
// A release whose compiled wheels do not fit this Python: pip's pure-Python fallback runs here.
// A wheel whose compiled code is CUDA device code files it loads through the driver: its import is
// judged, its kernels not. A wheel whose compiled code is a program its functions run as a
// subprocess: its import is judged, the program not. A library that does not load in this torch,
// where the package imports the same names from Python instead: it works, without the library.
// A library built per torch with no build for this one, which the working import did not load.
const char* const kLimitingSkips[] = {"no_extension_by_design", "optional_backend_unavailable",
                                      "schema_without_kernel",  "suite_needs_module",
                                      "cuda_build_needs_gpu",   "suite_collected_nothing",
                                      "compiled_at_first_use",  "compiled_wheel_elsewhere",
                                      "device_code_at_use",     "program_at_use",
                                      "python_fallback",        "no_build_unused_by_import"};
// Skips that leave the cell nothing to judge (checks/build/cell_lacks.h): a setup.py that refuses
// to build without a GPU where the build sees none, a CUDA-only build in a runtime without CUDA,
// a system library's headers the image lacks; a library linked to the GPU driver on a machine
// without one, or needing a system library its users install (FFmpeg): nothing about its load
// can be concluded here; an import that compiles its CUDA code for the visible GPUs, where there are
// none, or without a CUDA toolkit, where there is none; a library whose code uses instructions this
// machine's CPU lacks; a package none of whose libraries is for this runtime (an XPU build); an
// import that needs AMD's ROCm, in a runtime without it; an import that looks for a device (an RDMA
// adapter) this machine has not.
const char* const kNothingBuiltSkips[] = {"setup_needs_gpu",       "needs_cuda_to_build",   "needs_system_headers",
                                          "python_not_supported",  "build_needs_network",   "needs_gpu_driver",
                                          "needs_system_library",  "jit_needs_visible_gpu", "jit_needs_cuda",
                                          "cpu_lacks_instructions", "for_another_runtime", "needs_rocm",
                                          "needs_device"};

bool skip_of(const CheckResult& c, const char* const* begin, const char* const* end) {
  return c.status == Status::skip && c.diagnosis &&
         std::any_of(begin, end, [&](const char* kind) { return c.diagnosis->kind == kind; });
}

bool limiting_skip(const CheckResult& c) { return skip_of(c, std::begin(kLimitingSkips), std::end(kLimitingSkips)); }

bool nothing_built_skip(const CheckResult& c) {
  return skip_of(c, std::begin(kNothingBuiltSkips), std::end(kNothingBuiltSkips));
}

// A step the machine failed (a full disk, a kill from outside) says nothing of the library,
// whatever status its check got: the build step that ran out of disk is `fail` with disk_full
// (xformers 0.0.28.post3 in an atlas pair read "✘ broken: the build step ran out of disk space").
bool infrastructure(const CheckResult& c) {
  return is_bad(c.status) && c.diagnosis && is_infrastructure(c.check, c.diagnosis->kind);
}

// Each verdict's words, in rank order (the worse the verdict, the later): its symbol for people,
// its class for the HTML page and the JSON.
struct VerdictWords {
  Verdict verdict;
  const char* symbol;
  const char* css_class;
};

const VerdictWords kVerdictWords[] = {
    {Verdict::not_run, "○ not run", "notrun"},
    {Verdict::works, "✔ works", "pass"},
    {Verdict::works_with_limits, "◐ works with limits", "limits"},
    {Verdict::broken, "✘ broken", "fail"},
};

const VerdictWords* words_of(Verdict v) {
  for (const auto& w : kVerdictWords)
    if (w.verdict == v) return &w;
  return nullptr;
}

// Its place in kVerdictWords.
int rank(Verdict v) {
  const VerdictWords* w = words_of(v);
  return w ? static_cast<int>(w - kVerdictWords) : 0;
}

}  // namespace

bool wrong_result(const CheckResult& c) {
  const CheckSpec* spec = find_check(c.check);
  const bool failed = c.status != Status::pass && c.status != Status::xpass && c.status != Status::skip;
  return spec && c.diagnosis && failed &&
         std::find(spec->wrong_result_kinds.begin(), spec->wrong_result_kinds.end(), c.diagnosis->kind) !=
             spec->wrong_result_kinds.end();
}

Weight weight_of(const CheckResult& c) {
  if (c.status == Status::pass || c.status == Status::xpass || c.status == Status::skip) return Weight::none;
  if (wrong_result(c)) return Weight::breaks;  // a silent wrong result is never a mere limit
  const CheckSpec* spec = find_check(c.check);
  return spec && spec->weighs == Weighs::limits ? Weight::limits : Weight::breaks;
}

namespace {

// What a cell's results come to before they are put in order: each non-pass where it belongs.
struct Tally {
  std::set<std::string, decltype(&version_less)> archs{&version_less};
  // Archs a library of the build holds SASS for (a fatbin pass): where another library lacks
  // them, the arch is served in part (a package whose libraries target different GPUs by design).
  std::set<std::string> served_archs;
  // Archs a library reaches only by PTX the driver JIT-compiles, and archs a library has no code
  // for (a fatbin fail): an arch the build cannot target (nvcc 12.4 and sm_100) whose every library
  // holds PTX of an older arch runs there, JIT-compiled, in every library.
  std::set<std::string> jit_archs, codeless_archs;
  std::vector<std::string> op_order;
  std::map<std::string, std::vector<std::string>> op_limits;  // op -> "compile", "opcheck test_faketensor"
  std::vector<std::string> unexecuted, other_limits, unchecked;
};

void weigh(const CheckResult& c, bool promises_cuda, CellVerdict& v, Tally& t) {
  if (c.status == Status::skip) {
    const CheckSpec* spec = find_check(c.check);
    if (spec && !spec->unexecuted.empty() && promises_cuda) add_once(t.unexecuted, spec->unexecuted);
    if (limiting_skip(c)) add_once(t.other_limits, fmt::format("{}: {}", c.check, headline(c.message)));
    if (nothing_built_skip(c)) add_once(t.unchecked, fmt::format("{} {}", check_label(c), headline(c.message)));
    return;
  }
  if (c.check == "fatbin" && !c.arch.empty()) {
    if (fatbin_pass_by_jit(c)) t.jit_archs.insert(c.arch);
    else if (c.status == Status::pass || c.status == Status::xpass) t.served_archs.insert(c.arch);
    else if (c.status == Status::fail || c.status == Status::xfail) t.codeless_archs.insert(c.arch);
  }
  const Weight w = weight_of(c);
  if (w == Weight::none) return;
  if (infrastructure(c)) {
    add_once(t.unchecked, fmt::format("{} not checked: {}", check_label(c), headline(c.message)));
  } else if (w == Weight::breaks) {
    add_once(v.broken, broken_reason(c));
    if (c.status != Status::xfail) v.known_broken = false;
  } else if (!c.arch.empty()) {
    t.archs.insert(c.arch);
  } else if (!c.op.empty() && !(c.diagnosis && c.diagnosis->kind == kRequirementBreaksTorch)) {
    // A requirement that breaks torch's own machinery (checks/script/script_judge.h) showed at
    // an op, which is not its cause: it is said whole, below, not as the op's limit.
    if (!t.op_limits.count(c.op)) t.op_order.push_back(c.op);
    add_once(t.op_limits[c.op], check_and_subtest(c));
  } else {
    add_once(t.other_limits, fmt::format("{}: {}", c.check, headline(c.message)));
  }
}

// The library's findings (report/library_findings.h): its breaks lead (they name the cause the
// per-op reds share), its limits follow the per-op ones. Returns the line of a finding that
// leaves nothing of the library to judge here, if any.
std::string add_library_findings(const CellResult& r, CellVerdict& v, std::vector<std::string>& limits) {
  std::vector<std::string> breaks;
  std::string nothing_to_judge;
  for (const auto& f : library_findings(r)) {
    if (f.role == FindingRole::breaks) {
      breaks.push_back(f.line);
      if (!f.declared) v.known_broken = false;
      continue;
    }
    if (f.role == FindingRole::unobservable && f.every_op) nothing_to_judge = f.line;
    limits.push_back(f.line);
  }
  v.broken.insert(v.broken.begin(), breaks.begin(), breaks.end());
  return nothing_to_judge;
}

}  // namespace

CellVerdict assess(const CellResult& r) {
  CellVerdict v;
  v.as_declared = r.meets_expectations;
  if (r.status == Status::skip) {
    v.verdict = Verdict::not_run;
    for (const auto& c : r.checks)
      if (v.not_run.empty() && !c.message.empty()) v.not_run = c.message;
    return v;
  }
  const bool promises_cuda = r.cell.value("cuda", "none") != "none";
  Tally t;
  for (const auto& c : r.checks)
    if (!part_of_library_finding(c)) weigh(c, promises_cuda, v, t);
  std::vector<std::string> none, part, jit;
  for (const auto& a : t.archs) {
    const bool jit_everywhere = t.jit_archs.count(a) && !t.served_archs.count(a) && !t.codeless_archs.count(a);
    (jit_everywhere ? jit : t.served_archs.count(a) || t.jit_archs.count(a) ? part : none).push_back(sm_name(a));
  }
  if (!none.empty()) v.limits.push_back(fmt::format("no {} support", fmt::join(none, ", ")));
  if (!jit.empty())
    v.limits.push_back(fmt::format("no {} SASS, only PTX JIT-compiled by the driver (slow first launch)",
                                   fmt::join(jit, ", ")));
  if (!part.empty())
    v.limits.push_back(fmt::format("{} code in some of its libraries only (each library's archs: fatbin)", fmt::join(part, ", ")));
  v.limits.insert(v.limits.end(), t.unexecuted.begin(), t.unexecuted.end());
  for (const auto& op : t.op_order) v.limits.push_back(fmt::format("{}: {}", op, fmt::join(t.op_limits[op], ", ")));
  const std::string nothing_to_judge = add_library_findings(r, v, v.limits);
  v.limits.insert(v.limits.end(), t.other_limits.begin(), t.other_limits.end());
  if (!v.broken.empty()) {
    v.verdict = Verdict::broken;
    v.known_broken = v.known_broken && v.as_declared;
  } else if (!t.unchecked.empty() || (!nothing_to_judge.empty() && v.limits.size() == 1)) {
    // The infrastructure failed before the ops could be judged, or no op can be seen here:
    // neither broken nor working.
    v.verdict = Verdict::not_run;
    v.not_run = !t.unchecked.empty() ? t.unchecked.front() : nothing_to_judge;
    if (t.unchecked.empty()) v.limits.clear();
  } else {
    v.verdict = v.limits.empty() ? Verdict::works : Verdict::works_with_limits;
  }
  return v;
}

const char* verdict_symbol(Verdict v) { return words_of(v) ? words_of(v)->symbol : "?"; }

const char* verdict_class(Verdict v) { return words_of(v) ? words_of(v)->css_class : ""; }

bool worse(Verdict a, Verdict b) { return rank(a) > rank(b); }

std::string verdict_line(const CellVerdict& v, std::size_t items) {
  std::string line = v.verdict == Verdict::broken && v.known_broken ? "✘ known broken (declared)" : verdict_symbol(v.verdict);
  std::vector<std::string> reasons;
  if (v.verdict == Verdict::not_run && !v.not_run.empty()) reasons.push_back(headline(v.not_run));
  reasons.insert(reasons.end(), v.broken.begin(), v.broken.end());
  // A broken cell's limits matter less than what breaks it; they stay in the cell's section.
  if (v.verdict == Verdict::works_with_limits) reasons.insert(reasons.end(), v.limits.begin(), v.limits.end());
  if (items > 0 && !reasons.empty()) {
    const std::size_t shown = std::min(items, reasons.size());
    line += ": " + fmt::format("{}", fmt::join(reasons.begin(), reasons.begin() + static_cast<long>(shown), "; "));
    if (reasons.size() > shown) line += fmt::format(" (+{} more)", reasons.size() - shown);
  }
  if (!v.as_declared) line += " ‼ not as declared in matrix.yaml";
  return line;
}

nlohmann::json to_json(const CellVerdict& v) {
  nlohmann::json j = {{"verdict", verdict_class(v.verdict)}, {"text", verdict_line(v, 0)},
                      {"broken", v.broken}, {"limits", v.limits}, {"as_declared", v.as_declared}};
  if (v.verdict == Verdict::broken) j["known_broken"] = v.known_broken;
  if (!v.not_run.empty()) j["not_run"] = v.not_run;
  return j;
}

}  // namespace opmatrix
