#include "results/test_outcomes.h"

#include <cctype>
#include <filesystem>
#include <map>
#include <regex>
#include <sstream>

#include <nlohmann/json.hpp>

#include "util/atomic_write.h"

namespace fs = std::filesystem;

namespace opmatrix {

std::vector<TestOutcome> parse_ctest_log(const std::string& log) {
  static const std::regex line_re(
      R"(^\s*\d+/\d+\s+Test\s+#\d+:\s+(.+?)\s+\.*\s*(?:\*\*\*)?(Passed|Failed|Skipped|Timeout|Exception: [A-Za-z ]+?|Not Run[A-Za-z ]*?)\s+([0-9.]+) sec)");
  std::vector<TestOutcome> out;
  std::istringstream in(log);
  std::string line;
  while (std::getline(in, line)) {
    std::smatch m;
    if (!std::regex_search(line, m, line_re)) continue;
    TestOutcome t;
    // Parameterised tests read "Suite.Test/param  # GetParam() = ...": keep gtest's own name.
    t.name = m[1].str().substr(0, m[1].str().find("  # "));
    const std::string verdict = m[2];
    t.seconds = std::stod(m[3]);
    if (verdict == "Passed") t.status = Status::pass;
    else if (verdict == "Failed") t.status = Status::fail;
    else if (verdict == "Skipped") t.status = Status::skip;
    else if (verdict == "Timeout") { t.status = Status::timeout; t.message = "the test ran past its time limit"; }
    else if (verdict.rfind("Exception", 0) == 0) { t.status = Status::crash; t.message = verdict; }
    else { t.status = Status::error; t.message = "ctest did not run it: " + verdict; }
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

struct GtestInfo {
  std::string op, check, skip_reason, failure;
};

double parse_seconds(const nlohmann::json& t) {
  const std::string s = t.value("time", "0s");
  try {
    return std::stod(s);
  } catch (...) {
    return 0;
  }
}

}  // namespace

void annotate_from_gtest_json(std::vector<TestOutcome>& outcomes, const std::string& gtest_dir) {
  std::map<std::string, GtestInfo> info;
  std::map<std::string, double> seconds;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(gtest_dir, ec)) {
    if (entry.path().extension() != ".json") continue;
    nlohmann::json j = nlohmann::json::parse(read_text_file(entry.path().string()), nullptr, false);
    if (j.is_discarded()) continue;  // a process killed while writing it: ctest's verdict stands
    for (const auto& suite : j.value("testsuites", nlohmann::json::array())) {
      for (const auto& t : suite.value("testsuite", nlohmann::json::array())) {
        // Entries without "RUN" come from --gtest_list_tests (test discovery) or were filtered out.
        if (t.value("status", "") != "RUN") continue;
        const std::string name = suite.value("name", "") + "." + t.value("name", "");
        GtestInfo g;
        g.op = t.value("op", "");
        g.check = t.value("check", "");
        g.skip_reason = t.value("skip_reason", "");
        for (const auto& f : t.value("failures", nlohmann::json::array())) {
          if (!g.failure.empty()) g.failure += "\n";
          g.failure += f.value("failure", "");
        }
        info[name] = g;
        seconds[name] = parse_seconds(t);
      }
    }
  }
  for (auto& o : outcomes) {
    auto it = info.find(o.name);
    if (it == info.end()) {
      // ctest says "Prefix/Suite.Test/param"; gtest's JSON says suite "Suite", test "Test/param".
      const std::string suite = o.name.substr(0, o.name.find('.'));
      const auto slash = suite.rfind('/');
      if (slash != std::string::npos) it = info.find(o.name.substr(slash + 1));
    }
    if (it != info.end()) {
      o.op = it->second.op;
      o.check = it->second.check;
      if (o.status == Status::skip && !it->second.skip_reason.empty()) o.message = it->second.skip_reason;
      if (o.status == Status::fail && !it->second.failure.empty()) o.message = it->second.failure;
    }
    if (o.op.empty() || o.check.empty()) {
      const std::string suite = o.name.substr(0, o.name.find('.'));
      auto [op, check] = op_and_check_from_suite(suite);
      // The generic registration check is one suite for all ops: OpRegistration.<Kind>/<op>.
      const std::string bare_suite = suite.substr(suite.rfind('/') == std::string::npos ? 0 : suite.rfind('/') + 1);
      if (bare_suite == "OpRegistration" && o.name.rfind('/') != std::string::npos) {
        op = o.name.substr(o.name.rfind('/') + 1);
        check = o.name.find(".Load/") != std::string::npos ? "load" : "registration";
      }
      if (o.op.empty()) o.op = op;
      if (o.check.empty()) o.check = check;
    }
  }
}

}  // namespace opmatrix
