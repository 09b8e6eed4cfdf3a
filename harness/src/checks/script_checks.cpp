#include "checks/script_checks.h"

#include <fmt/format.h>

namespace opmatrix {

namespace {

std::string text(const nlohmann::json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

CheckResult malformed(const std::string& check, const std::string& what, const std::string& repro) {
  CheckResult c;
  c.check = check;
  c.status = Status::error;
  c.message = "the script's report is malformed: " + what;
  c.diagnosis = Diagnosis{"script_error", c.message, "fix the in-cell script: it must print {\"checks\": [...]}",
                          repro, ""};
  return c;
}

}  // namespace

std::vector<CheckResult> script_checks(const nlohmann::json& report, const std::string& check, const std::string& repro) {
  if (!report.is_object() || !report.contains("checks") || !report["checks"].is_array())
    return {malformed(check, "no \"checks\" list", repro)};
  std::vector<CheckResult> out;
  for (const auto& j : report["checks"]) {
    if (!j.is_object()) return {malformed(check, "an entry of \"checks\" is not an object", repro)};
    CheckResult c;
    c.check = text(j, "check");
    if (c.check != check)
      return {malformed(check, fmt::format("it reports check '{}', not its own '{}'", c.check, check), repro)};
    c.op = text(j, "op");
    c.arch = text(j, "arch");
    c.message = text(j, "message");
    const std::string status = text(j, "status");
    if (status == "pass") c.status = Status::pass;
    else if (status == "fail") c.status = Status::fail;
    else if (status == "skip") c.status = Status::skip;
    else if (status == "error") c.status = Status::error;
    else return {malformed(check, fmt::format("status '{}' (use pass, fail, skip or error)", status), repro)};
    if (c.status != Status::pass && c.status != Status::skip) {
      const nlohmann::json d = j.value("diagnosis", nlohmann::json::object());
      Diagnosis diag;
      diag.kind = d.is_object() && !text(d, "kind").empty() ? text(d, "kind") : check;
      diag.summary = d.is_object() && !text(d, "summary").empty() ? text(d, "summary") : c.message;
      diag.fix = d.is_object() ? text(d, "fix") : "";
      diag.evidence = d.is_object() ? text(d, "evidence") : "";
      diag.repro = repro;
      c.diagnosis = diag;
      if (c.message.empty()) c.message = diag.summary;
    }
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace opmatrix
