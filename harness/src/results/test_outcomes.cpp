#include "results/test_outcomes.h"

#include <cctype>
#include <filesystem>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <tuple>

#include <nlohmann/json.hpp>

#include "util/atomic_write.h"

namespace fs = std::filesystem;

namespace opmatrix {

namespace {

// ctest's verdict words, normalised: "Passed", "Failed", "Skipped", "Timeout", "Not Run ...",
// and for a signal "Exception: SegFault" (ctest prints "***Exception: SegFault", or for
// other signals "Subprocess killed***Exception:", "Subprocess aborted***Exception:", …).
std::pair<Status, std::string> read_verdict(std::string text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '*')) text.erase(0, 1);
  while (!text.empty() && text.back() == ' ') text.pop_back();
  const auto exception = text.find("Exception:");
  if (exception != std::string::npos) {
    std::string before = text.substr(0, exception), after = text.substr(exception + 10);
    while (!before.empty() && (before.back() == '*' || before.back() == ' ')) before.pop_back();
    while (!after.empty() && after.front() == ' ') after.erase(0, 1);
    std::string what = after;
    if (!before.empty()) what = what.empty() ? before : before + ", " + what;
    return {Status::crash, "Exception: " + (what.empty() ? std::string("signal") : what)};
  }
  if (text == "Passed") return {Status::pass, text};
  if (text.rfind("Failed", 0) == 0) return {Status::fail, text};
  if (text == "Skipped") return {Status::skip, text};
  if (text == "Timeout") return {Status::timeout, text};
  return {Status::error, text};  // "Not Run ...": ctest could not start it
}

std::string trim_trailing_blank_lines(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ')) s.pop_back();
  return s;
}

}  // namespace

std::vector<CtestRun> parse_ctest_log(const std::string& log) {
  static const std::regex verdict_re(R"(^\s*\d+/\d+\s+Test\s+#\d+:\s+(.+?)\s+\.*(.*?)\s+([0-9.]+) sec\s*$)");
  // Lines ctest prints itself: they end the previous test's output block.
  static const std::regex ctest_line_re(
      R"(^(\s+Start\s+\d+: |\d+% tests passed|The following tests |Total Test time|Test project |Errors while running CTest))");
  std::vector<CtestRun> out;
  std::istringstream in(log);
  std::string line;
  bool in_output = false;
  while (std::getline(in, line)) {
    std::smatch m;
    if (std::regex_search(line, m, verdict_re)) {
      CtestRun r;
      r.name = m[1].str().substr(0, m[1].str().find("  # "));
      std::tie(r.status, r.verdict) = read_verdict(m[2]);
      r.seconds = std::stod(m[3]);
      out.push_back(std::move(r));
      in_output = true;
      continue;
    }
    if (std::regex_search(line, ctest_line_re)) {
      in_output = false;
      continue;
    }
    if (in_output) out.back().output += line + "\n";
  }
  for (auto& r : out) r.output = trim_trailing_blank_lines(r.output);
  return out;
}

std::vector<TestOutcome> parse_gtest_console(const std::string& output, Status running_status,
                                             const std::string& running_message) {
  static const std::regex run_re(R"(^\[ RUN      \] ([^\s,]+))");
  static const std::regex end_re(R"(^\[ +(OK|FAILED|SKIPPED) +\] ([^\s,]+)(?:, where .*)? \((\d+) ms\))");
  std::vector<TestOutcome> out;
  std::istringstream in(output);
  std::string line, current, text;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    std::smatch m;
    if (std::regex_search(line, m, run_re)) {
      current = m[1];
      text.clear();
    } else if (std::regex_search(line, m, end_re)) {
      TestOutcome t;
      t.name = m[2];
      const std::string word = m[1];
      t.status = word == "OK" ? Status::pass : word == "FAILED" ? Status::fail : Status::skip;
      t.seconds = std::stod(m[3]) / 1000.0;
      if (t.status != Status::pass) t.message = trim_trailing_blank_lines(text);
      // GTEST_SKIP prints "file:line: Skipped" and then the reason.
      if (t.status == Status::skip) {
        const auto skipped = t.message.find(": Skipped\n");
        if (skipped != std::string::npos) t.message = t.message.substr(skipped + 10);
      }
      out.push_back(std::move(t));
      current.clear();
      text.clear();
    } else if (!current.empty()) {
      text += line + "\n";
    }
  }
  if (!current.empty()) {
    TestOutcome t;
    t.name = current;
    t.status = running_status;
    t.message = running_message;
    const std::string printed = trim_trailing_blank_lines(text);
    if (!printed.empty()) t.message += "\n" + printed.substr(printed.size() > 2000 ? printed.size() - 2000 : 0);
    out.push_back(std::move(t));
  }
  return out;
}

std::pair<std::string, std::string> op_and_check_from_suite(const std::string& suite) {
  static const char* const kChecks[] = {"Registration", "Correctness", "Gradient", "Meta", "Device", "Load"};
  for (const char* c : kChecks) {
    const std::string check(c);
    if (suite.size() <= check.size() || suite.compare(suite.size() - check.size(), check.size(), check) != 0)
      continue;
    const std::string camel = suite.substr(0, suite.size() - check.size());
    std::string op;
    for (std::size_t i = 0; i < camel.size(); ++i) {
      const char ch = camel[i];
      if (std::isupper(static_cast<unsigned char>(ch)) && i > 0) op += '_';
      op += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    }
    std::string lower = check;
    lower[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(lower[0])));
    return {op, lower};
  }
  return {"", ""};
}

namespace {

double parse_seconds(const nlohmann::json& t) {
  const std::string s = t.value("time", "0s");
  try {
    return std::stod(s);
  } catch (...) {
    return 0;
  }
}

// The tests gtest's JSON reports as run, in its order; nullopt-like empty result when the
// file is missing, unreadable or truncated (the process died while writing it).
std::vector<TestOutcome> outcomes_from_gtest_json(const std::string& path, bool& usable) {
  std::vector<TestOutcome> out;
  usable = false;
  std::error_code ec;
  if (!fs::exists(path, ec)) return out;
  nlohmann::json j = nlohmann::json::parse(read_text_file(path), nullptr, false);
  if (j.is_discarded() || !j.is_object() || !j.contains("testsuites")) return out;
  usable = true;
  for (const auto& suite : j.value("testsuites", nlohmann::json::array())) {
    for (const auto& t : suite.value("testsuite", nlohmann::json::array())) {
      // "NOTRUN": filtered out or DISABLED_; entries without a status come from a listing.
      if (t.value("status", "") != "RUN") continue;
      TestOutcome o;
      o.name = suite.value("name", "") + "." + t.value("name", "");
      o.op = t.value("op", "");
      o.check = t.value("check", "");
      o.seconds = parse_seconds(t);
      std::string failure;
      for (const auto& f : t.value("failures", nlohmann::json::array())) {
        if (!failure.empty()) failure += "\n";
        failure += f.value("failure", "");
      }
      if (!failure.empty()) {
        o.status = Status::fail;
        o.message = failure;
      } else if (t.value("result", "") == "SKIPPED") {
        o.status = Status::skip;
        o.message = t.value("skip_reason", "");
        // Newer gtest writes GTEST_SKIP's message itself.
        if (o.message.empty())
          for (const auto& s : t.value("skipped", nlohmann::json::array())) o.message += s.value("message", "");
      } else {
        o.status = Status::pass;
      }
      out.push_back(std::move(o));
    }
  }
  return out;
}

std::vector<std::string> read_test_list(const std::string& path) {
  std::vector<std::string> names;
  std::istringstream in(read_text_file(path));
  std::string line;
  while (std::getline(in, line))
    if (!line.empty()) names.push_back(line);
  return names;
}

// "nms_correctness" -> {"nms", "correctness"}; "registration" -> {"", "registration"}.
std::pair<std::string, std::string> op_and_check_from_binary(const std::string& binary) {
  const auto us = binary.rfind('_');
  if (us == std::string::npos) return {"", binary};
  return {binary.substr(0, us), binary.substr(us + 1)};
}

void fill_op_and_check(TestOutcome& o) {
  if (!o.op.empty() && !o.check.empty()) return;
  const std::string suite = o.name.substr(0, o.name.find('.'));
  auto [op, check] = op_and_check_from_suite(suite.substr(suite.rfind('/') == std::string::npos ? 0 : suite.rfind('/') + 1));
  // The generic registration check is one suite for all ops: OpRegistration.<Kind>/<op>.
  const std::string bare_suite = suite.substr(suite.rfind('/') == std::string::npos ? 0 : suite.rfind('/') + 1);
  if (bare_suite == "OpRegistration" && o.name.rfind('/') != std::string::npos) {
    op = o.name.substr(o.name.rfind('/') + 1);
    check = o.name.find(".Load/") != std::string::npos ? "load" : "registration";
  }
  if (check.empty() && !o.binary.empty()) std::tie(op, check) = op_and_check_from_binary(o.binary);
  if (o.op.empty()) o.op = op;
  if (o.check.empty()) o.check = check;
}

// What happened to the process, in words, for the test it was running and those it never reached.
std::string fate_of(const CtestRun& r) {
  switch (r.status) {
    case Status::crash: return r.verdict;  // "Exception: SegFault"
    case Status::timeout:
      return "the test process (" + r.name + ") ran past its time limit (" + std::to_string(static_cast<int>(r.seconds)) + " s)";
    case Status::fail: return "the test process (" + r.name + ") exited before gtest wrote its results";
    default: return "ctest reported no result for " + r.name + " (" + r.verdict + ")";
  }
}

// A binary that started (it wrote its list) but has no verdict: ctest itself was stopped.
void add_stopped_runs(std::vector<CtestRun>& runs, const std::string& gtest_dir) {
  std::set<std::string> known;
  for (const auto& r : runs) known.insert(r.name);
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(gtest_dir, ec)) {
    if (entry.path().extension() != ".list" || known.count(entry.path().stem().string())) continue;
    CtestRun r;
    r.name = entry.path().stem().string();
    r.status = Status::error;
    r.verdict = "stopped before it finished: the test step was ended";
    runs.push_back(r);
  }
}

// A process that wrote its results and then crashed or hung (static destructors, atexit).
void add_fate_after_results(const CtestRun& run, std::vector<TestOutcome>& outs) {
  if (run.status != Status::crash && run.status != Status::timeout) return;
  TestOutcome t;
  t.name = run.name + " (after its tests)";
  t.status = run.status;
  t.message = fate_of(run) + ", after gtest wrote its results";
  outs.push_back(t);
}

// The listed tests the process never reached, each with its fate (and the test it died in).
void add_not_reached(const CtestRun& run, const std::vector<std::string>& listed, std::vector<TestOutcome>& outs) {
  std::set<std::string> seen;
  std::string died_in;
  for (const auto& o : outs) seen.insert(o.name);
  if (!outs.empty() && (outs.back().status == Status::crash || outs.back().status == Status::timeout ||
                        outs.back().status == Status::error))
    died_in = outs.back().name;
  for (const auto& name : listed) {
    if (seen.count(name)) continue;
    TestOutcome t;
    t.name = name;
    t.status = Status::error;
    t.message = "not run: " +
                (run.status == Status::crash ? "the test process (" + run.name + ") crashed (" + run.verdict + ")"
                                             : fate_of(run)) +
                (died_in.empty() ? "" : " during " + died_in);
    outs.push_back(t);
  }
}

// Without gtest's JSON: the tests its console output shows, then those it never reached.
std::vector<TestOutcome> outcomes_from_console(const CtestRun& run, const std::vector<std::string>& listed) {
  const Status running = run.status == Status::timeout ? Status::timeout
                         : run.status == Status::error ? Status::error
                                                       : Status::crash;
  std::vector<TestOutcome> outs = parse_gtest_console(run.output, running, fate_of(run));
  if (outs.empty() && listed.empty() && run.status == Status::pass) {
    // Passed, but no JSON and no output (GTEST_OUTPUT unset): one outcome for the binary.
    TestOutcome t;
    t.name = run.name;
    t.status = Status::pass;
    t.message = "passed (gtest wrote no per-test results)";
    t.seconds = run.seconds;
    outs.push_back(t);
  }
  add_not_reached(run, listed, outs);
  return outs;
}

// A binary that never reached main(): the loader failed (missing library) or ctest could not run it.
TestOutcome did_not_start(const CtestRun& run) {
  TestOutcome t;
  t.name = run.name;
  t.status = run.status == Status::pass || run.status == Status::skip ? Status::error : run.status;
  if (t.status == Status::fail) t.status = Status::error;
  t.message = run.name + " did not start (" + run.verdict + ")" +
              (run.output.empty() ? std::string() : ": " + run.output.substr(0, 2000));
  t.seconds = run.seconds;
  t.binary = run.name;
  fill_op_and_check(t);
  return t;
}

}  // namespace

std::vector<TestOutcome> collect_test_outcomes(const std::string& ctest_log, const std::string& gtest_dir) {
  std::vector<CtestRun> runs = parse_ctest_log(ctest_log);
  add_stopped_runs(runs, gtest_dir);
  std::vector<TestOutcome> all;
  bool any_started = false;
  for (const CtestRun& run : runs) {
    const std::string base = gtest_dir + "/" + run.name;
    bool json_usable = false;
    std::vector<TestOutcome> outs = outcomes_from_gtest_json(base + ".json", json_usable);
    if (json_usable) {
      add_fate_after_results(run, outs);
    } else {
      outs = outcomes_from_console(run, read_test_list(base + ".list"));
      if (outs.empty()) {
        all.push_back(did_not_start(run));
        continue;
      }
    }
    any_started = true;
    for (auto& o : outs) {
      o.binary = run.name;
      fill_op_and_check(o);
      all.push_back(std::move(o));
    }
  }
  if (!any_started) return {};
  return all;
}

}  // namespace opmatrix
