#include "checks/script/script_judge.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "util/json_fields.h"

namespace opmatrix {

namespace {

CheckResult malformed(const std::string& check, const std::string& what, const std::string& repro) {
  CheckResult c;
  c.check = check;
  c.status = Status::error;
  c.message = "the script's report is malformed: " + what;
  c.diagnosis = Diagnosis{"script_error", c.message, "fix the in-cell script: it must print {\"checks\": [...]}",
                          repro, ""};
  return c;
}

// A requirement of the project that breaks torch's own machinery (op_samples.py's
// requirement_breaks_torch: Debian's torch 2.6 beside triton 3.9) fails every op of every
// behaviour check alike, torchvision's too: one red in the cell, at the first op of the first
// check that meets it; the others skip pointing to it.
constexpr const char* kInstalledBy = ", installed by the project's requirements";

std::string broken_package(const CheckResult& c) {
  return c.diagnosis && c.diagnosis->kind == kRequirementBreaksTorch && c.status == Status::fail
             ? c.message.substr(0, c.message.find(kInstalledBy))
             : std::string();
}

std::vector<CheckResult> one_red_per_broken_requirement(std::vector<CheckResult> results,
                                                        const std::vector<CheckResult>& earlier) {
  std::map<std::string, std::string> red_in;  // "triton 3.9.0" -> the check it is red in
  for (const auto& c : earlier)
    if (const std::string package = broken_package(c); !package.empty()) red_in.emplace(package, c.check);
  for (auto& c : results) {
    const std::string package = broken_package(c);
    if (package.empty()) continue;
    const auto seen = red_in.find(package);
    if (seen == red_in.end()) {
      red_in.emplace(package, c.check);
      continue;
    }
    c.status = Status::skip;
    c.message = fmt::format("not judged apart: {}{}, breaks torch's own machinery here (red once, at {})", package,
                            kInstalledBy, seen->second == c.check ? "its first op" : "the " + seen->second + " check");
    c.diagnosis.reset();
  }
  return results;
}

}  // namespace

std::vector<CheckResult> script_checks(const nlohmann::json& report, const std::string& check, const std::string& repro,
                                       const std::vector<CheckResult>& earlier) {
  if (!report.is_object() || !report.contains("checks") || !report["checks"].is_array())
    return {malformed(check, "no \"checks\" list", repro)};
  std::vector<CheckResult> out;
  for (const auto& j : report["checks"]) {
    if (!j.is_object()) return {malformed(check, "an entry of \"checks\" is not an object", repro)};
    CheckResult c;
    c.check = json_text(j, "check");
    if (c.check != check)
      return {malformed(check, fmt::format("it reports check '{}', not its own '{}'", c.check, check), repro)};
    c.op = json_text(j, "op");
    c.arch = json_text(j, "arch");
    c.subtest = json_text(j, "subtest");
    c.sample = json_text(j, "sample");
    c.message = json_text(j, "message");
    const std::string status = json_text(j, "status");
    if (status == "pass") c.status = Status::pass;
    else if (status == "fail") c.status = Status::fail;
    else if (status == "skip") c.status = Status::skip;
    else if (status == "error") c.status = Status::error;
    else return {malformed(check, fmt::format("status '{}' (use pass, fail, skip or error)", status), repro)};
    if (c.status != Status::pass && c.status != Status::skip) {
      const nlohmann::json d = j.value("diagnosis", nlohmann::json::object());
      Diagnosis diag;
      diag.kind = d.is_object() && !json_text(d, "kind").empty() ? json_text(d, "kind") : check;
      diag.summary = d.is_object() && !json_text(d, "summary").empty() ? json_text(d, "summary") : c.message;
      diag.fix = d.is_object() ? json_text(d, "fix") : "";
      diag.evidence = d.is_object() ? json_text(d, "evidence") : "";
      diag.repro = repro;
      c.diagnosis = diag;
      if (c.message.empty()) c.message = diag.summary;
    }
    out.push_back(std::move(c));
  }
  return one_red_per_broken_requirement(std::move(out), earlier);
}

}  // namespace opmatrix
