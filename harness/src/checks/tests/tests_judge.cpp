#include "checks/tests/tests_judge.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>
#include <regex>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "checks/tests/collection_errors.h"
#include "util/json_fields.h"

namespace opmatrix {

namespace {

std::string lower(std::string s) {
  for (auto& ch : s) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return s;
}

// Whether text[at, at+size) stands as a word: "test_myadd_out" holds myadd_out and myadd ('_'
// separates words), "test_mynms" holds no nms.
bool word_at(const std::string& text, std::size_t at, std::size_t size) {
  auto alnum = [&](std::size_t i) { return std::isalnum(static_cast<unsigned char>(text[i])) != 0; };
  return (at == 0 || !alnum(at - 1)) && (at + size == text.size() || !alnum(at + size));
}

// Whether `part` ("_mymuladd_grad", "MyAddOut") begins with the op `name` ("myadd_out"), '_'
// and case set aside, and a word ends there: its end, '_', punctuation or a capital after a
// small letter (MyMulAdd begins with mymul and with mymuladd, not with mymu).
bool begins_with_name(const std::string& part, const std::string& name) {
  auto is_ = [](char c) { return c == '_'; };
  std::size_t i = 0;
  for (char want : name) {
    if (is_(want)) continue;
    while (i < part.size() && is_(part[i])) ++i;
    if (i == part.size() || std::tolower(static_cast<unsigned char>(part[i])) != want) return false;
    ++i;
  }
  if (i == part.size() || !std::isalnum(static_cast<unsigned char>(part[i]))) return true;
  return std::isupper(static_cast<unsigned char>(part[i])) && std::islower(static_cast<unsigned char>(part[i - 1]));
}

std::string short_name(const std::string& op) {
  const std::size_t at = op.rfind("::");
  return lower(at == std::string::npos ? op : op.substr(at + 2));
}

CheckResult result(const std::string& op, Status status, std::string message, std::vector<std::string> tests,
                   double seconds) {
  CheckResult c;
  c.op = op;
  c.check = "tests";
  c.status = status;
  c.message = std::move(message);
  c.tests = std::move(tests);
  c.seconds = seconds;
  return c;
}

// A few distinct reasons, for a person: "'needs CUDA' (3), 'slow' (1)".
std::string reasons(const std::vector<std::pair<std::string, std::string>>& skipped) {
  std::map<std::string, int> count;
  std::vector<std::string> order;
  for (const auto& [id, why] : skipped)
    if (count[why]++ == 0) order.push_back(why);
  std::vector<std::string> out;
  for (std::size_t i = 0; i < order.size() && i < 3; ++i) out.push_back(fmt::format("'{}' ({})", order[i], count[order[i]]));
  if (order.size() > 3) out.push_back(fmt::format("{} more", order.size() - 3));
  return fmt::format("{}", fmt::join(out, ", "));
}

std::vector<std::string> ids_of(const std::vector<std::pair<std::string, std::string>>& tests) {
  std::vector<std::string> out;
  for (const auto& t : tests) out.push_back(t.first);
  return out;
}

CheckResult command_failed(const TestsContext& ctx, std::string summary) {
  CheckResult c = result("", Status::fail, summary, {}, ctx.seconds);
  Diagnosis d;
  d.kind = "tests_failed";
  d.summary = std::move(summary);
  d.fix = "run the command in the cell and read its output: the library's own test command fails there";
  d.repro = ctx.repro;
  d.evidence = ctx.log.size() > 2000 ? ctx.log.substr(ctx.log.size() - 2000) : ctx.log;
  c.diagnosis = d;
  return c;
}

struct SuiteCounts {
  int passed = 0, failed = 0, skipped = 0, exit_code = 0;
  int lacking = 0;  // tests that failed for what no cell gives (kCellLacks): pytest's exit 1 is theirs
};

// The suite as a whole, where no failure speaks for it: what ran ("12 tests pass"), and what was
// not collected and why; "0 tests ran" said where none did.
std::optional<CheckResult> suite_summary(const SuiteCounts& n, const NotCollected& nc, const TestsContext& ctx) {
  const std::string unrun = not_collected_clause(nc);
  if (n.failed > 0) return std::nullopt;  // the failing tests say it
  if (nc.broken_files > 0) {  // the files that fail at import say it; that nothing ran, said here
    if (n.passed + n.skipped > 0) return std::nullopt;
    return result("", Status::skip, "0 tests ran: " + unrun, {}, ctx.seconds);
  }
  // pytest's exit 5, nothing collected and nothing broken: the folder holds no pytest tests
  // (fused-ssim's tests/ are scripts run by hand). Not the library's break: nothing was checked.
  if (n.exit_code == 5 && n.passed + n.skipped == 0 && nc.files == 0 && n.lacking == 0) {
    CheckResult c = result("", Status::skip,
                           "pytest collected no tests: the suite's files define no test functions or classes "
                           "(scripts, not a pytest suite), so nothing of it was checked here",
                           {}, ctx.seconds);
    c.diagnosis = Diagnosis{kSuiteCollectedNothing, c.message,
                            "point tests: at the library's pytest suite, or drop tests: where it has none", ctx.repro,
                            ""};
    return c;
  }
  if (n.exit_code != 0 && nc.files == 0 && n.lacking == 0)
    return command_failed(ctx, fmt::format("the test command exited {} with no failing test in its JUnit "
                                           "XML{}", n.exit_code, n.exit_code == 5 ? " (pytest: no tests collected)" : ""));
  const std::string skipped = n.skipped ? fmt::format(" ({} skipped)", n.skipped) : "";
  if (n.passed == 0)
    return result("", Status::skip, unrun.empty() ? "no test ran (every test skipped)" : "0 tests ran: " + unrun, {},
                  ctx.seconds);
  if (unrun.empty()) return result("", Status::pass, fmt::format("all {} tests pass{}", n.passed, skipped), {}, ctx.seconds);
  return result("", Status::pass, fmt::format("{} {}{}; {}", n.passed, n.passed == 1 ? "test passes" : "tests pass", skipped, unrun), {},
                ctx.seconds);
}

}  // namespace

std::vector<std::string> ops_named_by(const std::string& test_id, const std::vector<std::string>& ops) {
  // The test's own names (class, function), not its file's: test_ops.py names no op.
  const std::size_t at = test_id.find("::");
  const std::string names = at == std::string::npos ? test_id : test_id.substr(at + 2);
  const std::string id = lower(names);
  // Each name without a leading "test": TestMyAddOut and test_myadd_out both begin with the op
  // myadd_out once '_' and case are set aside.
  std::vector<std::string> parts;
  for (std::size_t from = 0; from <= names.size();) {
    const std::size_t end = std::min(names.find("::", from), names.size());
    std::string part = names.substr(from, std::min(names.find('[', from), end) - from);
    if (lower(part).rfind("test", 0) == 0) part = part.substr(4);
    parts.push_back(part);
    from = end + 2;
  }
  std::vector<std::string> hits;
  for (const auto& op : ops) {
    const std::string name = short_name(op);
    if (name.empty()) continue;
    bool named = std::any_of(parts.begin(), parts.end(), [&](const std::string& p) { return begins_with_name(p, name); });
    for (std::size_t pos = id.find(name); !named && pos != std::string::npos; pos = id.find(name, pos + 1))
      named = word_at(id, pos, name.size());
    if (named) hits.push_back(op);
  }
  std::vector<std::string> out;
  for (const auto& op : hits) {
    const std::string name = short_name(op);
    const bool held = std::any_of(hits.begin(), hits.end(), [&](const std::string& other) {
      const std::string o = short_name(other);
      return o != name && o.find(name) != std::string::npos;
    });
    if (!held) out.push_back(op);
  }
  return out;
}

bool skipped_for_gpu(const std::string& reason) {
  static const std::regex gpu(R"((^|[^A-Za-z])(cuda|gpus?|device|nvidia|rocm)([^A-Za-z]|$))", std::regex::icase);
  return std::regex_search(reason, gpu);
}

// What a test can need that no cell gives it, told by its failure's own words: such a test is
// neither passed nor failed here (like a GPU test in a CPU cell), and is said so in one line.
struct CellLacks {
  const char* pattern;
  const char* needs;
};
const CellLacks kCellLacks[] = {
    // Cells run with --network=none: a test that downloads weights or images cannot run there.
    {R"(Temporary failure in name resolution|Name or service not known|Network is unreachable|URLError|ConnectionError|Max retries exceeded with url)",
     "the network (cells run without it: weights, images or data it downloads)"},
    // A relative path the test reads that the repository does not hold: data a maintainer
    // downloads or prepares by hand (datasets/coco/…), as its README says.
    {R"(FileNotFoundError: \[Errno 2\] No such file or directory: '[^/'][^']*')",
     "data files the repository does not hold (relative paths it reads, prepared by hand as its README says)"},
};

const CellLacks* lacked_by_cell(const std::string& message) {
  // Compiled once: a suite may have hundreds of failures to read.
  static const std::vector<std::regex> patterns = [] {
    std::vector<std::regex> out;
    for (const auto& lack : kCellLacks) out.emplace_back(lack.pattern);
    return out;
  }();
  for (std::size_t i = 0; i < patterns.size(); ++i)
    if (std::regex_search(message, patterns[i])) return &kCellLacks[i];
  return nullptr;
}

std::vector<CheckResult> tests_results(const nlohmann::json& report, const TestsContext& ctx) {
  if (!report.is_object())
    return {command_failed(ctx, "run_tests.py printed no result (see the log)")};
  const int exit_code = report.value("exit_code", 0);
  if (!report.value("junit", false)) {
    if (exit_code == 0)
      return {result("", Status::pass, "the test command passed (it wrote no JUnit XML: no results per test)", {}, ctx.seconds)};
    const std::string why = report.contains("junit_error") ? json_text(report, "junit_error")
                                                           : "it wrote no JUnit XML, so which tests failed is in the log";
    return {command_failed(ctx,
                           exit_code == 127 ? "the test command cannot be run (exit 127: not found in the cell)"
                                            : fmt::format("the test command failed (exit {}); {}", exit_code, why))};
  }
  std::vector<CheckResult> out;
  std::vector<std::pair<std::string, std::string>> gpu_skips, other_skips;
  std::map<const CellLacks*, std::vector<std::pair<std::string, std::string>>> cell_lacks;
  std::map<std::string, std::vector<std::string>> passed_by_op;
  std::map<std::string, bool> op_failed;
  int passed = 0, failed = 0;
  for (const auto& t : report.value("tests", nlohmann::json::array())) {
    const std::string id = json_text(t, "id"), outcome = json_text(t, "outcome"), message = json_text(t, "message");
    const std::vector<std::string> ops = ops_named_by(id, ctx.ops);
    if (outcome == "passed") {
      ++passed;
      for (const auto& op : ops) passed_by_op[op].push_back(id);
    } else if (outcome == "skipped") {
      (skipped_for_gpu(message) ? gpu_skips : other_skips).push_back({id, message});
    } else if (const CellLacks* lack = lacked_by_cell(message)) {
      cell_lacks[lack].push_back({id, message.substr(0, message.find('\n'))});
    } else {
      ++failed;
      const std::string what = outcome == "error" ? "errored" : "failed";
      for (const std::string& op : ops.empty() ? std::vector<std::string>{""} : ops) {
        CheckResult c = result(op, Status::fail, fmt::format("{} {}: {}", id, what, message.empty() ? "(no message)" : message),
                               {id}, 0);
        Diagnosis d;
        d.kind = "test_failed";
        d.summary = c.message;
        d.fix = "the library's own test " + what + " in this cell: run it alone with the command below and fix the op "
                "(or the test, where it assumes what this cell does not have)";
        d.repro = ctx.repro_for ? ctx.repro_for(id) : ctx.repro;
        d.evidence = message;
        c.diagnosis = d;
        if (!op.empty()) op_failed[op] = true;
        out.push_back(std::move(c));
      }
    }
  }
  for (const auto& [op, ids] : passed_by_op)
    if (!op_failed.count(op))
      out.push_back(result(op, Status::pass, fmt::format("{} of its tests pass", ids.size()), ids, 0));
  if (!gpu_skips.empty())
    out.push_back(result("", Status::skip,
                         fmt::format("{} tests need a GPU and skip here, neither passed nor failed: {}", gpu_skips.size(),
                                     reasons(gpu_skips)),
                         ids_of(gpu_skips), 0));
  int lacking = 0;
  for (const auto& lack : kCellLacks) {
    const auto it = cell_lacks.find(&lack);
    if (it == cell_lacks.end()) continue;
    lacking += static_cast<int>(it->second.size());
    out.push_back(result("", Status::skip,
                         fmt::format("{} {} {}, neither passed nor failed here: {}", it->second.size(),
                                     it->second.size() == 1 ? "test needs" : "tests need", lack.needs,
                                     fmt::join(ids_of(it->second), ", ")),
                         ids_of(it->second), 0));
  }
  if (!other_skips.empty())
    out.push_back(result("", Status::skip, fmt::format("{} tests skipped by the suite: {}", other_skips.size(), reasons(other_skips)),
                         ids_of(other_skips), 0));
  CollectionJudgement collection = judge_collection_errors(report.value("collection_errors", nlohmann::json::array()), ctx);
  out.insert(out.end(), collection.results.begin(), collection.results.end());
  const SuiteCounts counts{passed, failed, static_cast<int>(gpu_skips.size() + other_skips.size()) + lacking, exit_code,
                           lacking};
  if (std::optional<CheckResult> summary = suite_summary(counts, collection.not_collected, ctx))
    out.push_back(std::move(*summary));
  return out;
}

}  // namespace opmatrix
