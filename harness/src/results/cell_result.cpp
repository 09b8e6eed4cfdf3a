#include "results/cell_result.h"

#include <stdexcept>

#include <fmt/format.h>

namespace opmatrix {

namespace {

nlohmann::json diagnosis_json(const Diagnosis& d) {
  return {{"kind", d.kind}, {"summary", d.summary}, {"fix", d.fix}, {"repro", d.repro}, {"evidence", d.evidence}};
}

Diagnosis diagnosis_from(const nlohmann::json& j) {
  return {j.value("kind", ""), j.value("summary", ""), j.value("fix", ""), j.value("repro", ""),
          j.value("evidence", "")};
}

Status status_of(const nlohmann::json& j, const char* key) {
  const std::string s = j.value(key, "error");
  auto st = status_from_string(s);
  if (!st) throw std::runtime_error(fmt::format("unknown status '{}'", s));
  return *st;
}

}  // namespace

void settle_status(CellResult& r) {
  std::vector<Status> statuses;
  for (const auto& c : r.checks) statuses.push_back(c.status);
  r.status = statuses.empty() ? Status::error : worst_of(statuses);
  r.meets_expectations = r.status != Status::skip ? !is_bad(r.status) : true;
  // An atlas pair declares nothing: what it measures is the finding. Only a pair the
  // infrastructure kept from measuring (an error: the network, a full disk) is not as it should be.
  if (r.cell.is_object() && r.cell.value("atlas_pair", false)) r.meets_expectations = r.status != Status::error;
}

nlohmann::json to_json(const CellResult& r) {
  nlohmann::json j;
  j["schema"] = "opmatrix-results";
  j["schema_version"] = r.schema_version;
  j["harness_version"] = r.harness_version;
  j["cell"] = r.cell;
  j["engine"] = r.engine;
  j["image"] = r.image;
  if (!r.image_id.empty()) j["image_id"] = r.image_id;
  if (!r.commit.empty()) j["commit"] = r.commit;
  j["started_at"] = r.started_at;
  j["seconds"] = r.seconds;
  j["status"] = to_string(r.status);
  j["meets_expectations"] = r.meets_expectations;
  j["cache_key"] = r.cache_key;
  if (!r.cache_key_parts.empty()) j["cache_key_parts"] = r.cache_key_parts;
  j["cached"] = r.cached;
  j["versions"] = r.versions;
  j["steps"] = nlohmann::json::array();
  for (const auto& s : r.steps) {
    nlohmann::json sj{{"name", s.name},      {"status", to_string(s.status)}, {"seconds", s.seconds},
                      {"exit_code", s.exit_code}, {"signal", s.signal},            {"log", s.log},
                      {"command", s.command}};
    if (s.waited_seconds) sj["waited_seconds"] = *s.waited_seconds;
    if (s.download_bytes) sj["download_bytes"] = *s.download_bytes;
    j["steps"].push_back(sj);
  }
  j["checks"] = nlohmann::json::array();
  for (const auto& c : r.checks) {
    nlohmann::json cj{{"op", c.op}, {"check", c.check}, {"status", to_string(c.status)}, {"message", c.message},
                      {"seconds", c.seconds}, {"tests", c.tests}};
    if (!c.arch.empty()) cj["arch"] = c.arch;
    if (!c.subtest.empty()) cj["subtest"] = c.subtest;
    if (!c.sample.empty()) cj["sample"] = c.sample;
    if (!c.kernels.empty()) cj["kernels"] = c.kernels;
    if (!c.missing_kernels.empty()) cj["missing_kernels"] = c.missing_kernels;
    if (!c.expected_reason.empty()) cj["expected_reason"] = c.expected_reason;
    if (c.diagnosis) cj["diagnosis"] = diagnosis_json(*c.diagnosis);
    j["checks"].push_back(cj);
  }
  j["diagnoses"] = nlohmann::json::array();
  for (const auto& d : r.diagnoses) j["diagnoses"].push_back(diagnosis_json(d));
  return j;
}

CellResult cell_result_from_json(const nlohmann::json& j) {
  if (!j.is_object() || j.value("schema", "") != "opmatrix-results")
    throw std::runtime_error("not an opmatrix results file (no \"schema\": \"opmatrix-results\")");
  const int version = j.value("schema_version", 0);
  if (version > kResultsSchemaVersion)
    throw std::runtime_error(fmt::format("results schema version {} is newer than this opmatrix reads ({}); "
                                         "update opmatrix", version, kResultsSchemaVersion));
  if (version < 1) throw std::runtime_error("results file has no valid schema_version");
  CellResult r;
  r.schema_version = version;
  r.harness_version = j.value("harness_version", "");
  r.cell = j.at("cell");
  r.engine = j.value("engine", "");
  r.image = j.value("image", "");
  r.image_id = j.value("image_id", "");
  r.commit = j.value("commit", "");
  r.started_at = j.value("started_at", "");
  r.seconds = j.value("seconds", 0.0);
  r.status = status_of(j, "status");
  r.meets_expectations = j.value("meets_expectations", false);
  r.cache_key = j.value("cache_key", "");
  r.cache_key_parts = j.value("cache_key_parts", nlohmann::json::object());
  r.cached = j.value("cached", false);
  r.versions = j.value("versions", nlohmann::json::object());
  const auto number = [](const nlohmann::json& o, const char* key) {
    return o.contains(key) && o[key].is_number() ? std::optional<double>(o[key].get<double>()) : std::nullopt;
  };
  for (const auto& s : j.value("steps", nlohmann::json::array()))
    r.steps.push_back({s.value("name", ""), status_of(s, "status"), s.value("seconds", 0.0), s.value("exit_code", 0),
                       s.value("signal", 0), s.value("log", ""), s.value("command", ""),
                       number(s, "waited_seconds"), number(s, "download_bytes")});
  for (const auto& c : j.value("checks", nlohmann::json::array())) {
    CheckResult cr;
    cr.op = c.value("op", "");
    cr.check = c.value("check", "");
    cr.arch = c.value("arch", "");
    cr.subtest = c.value("subtest", "");
    cr.sample = c.value("sample", "");
    cr.status = status_of(c, "status");
    cr.message = c.value("message", "");
    cr.expected_reason = c.value("expected_reason", "");
    cr.seconds = c.value("seconds", 0.0);
    cr.tests = c.value("tests", std::vector<std::string>{});
    for (const auto& [key, into] : {std::pair{"kernels", &cr.kernels}, std::pair{"missing_kernels", &cr.missing_kernels}})
      if (c.contains(key) && c[key].is_array())
        for (const auto& k : c[key])
          if (k.is_string()) into->push_back(k.get<std::string>());
    if (c.contains("diagnosis")) cr.diagnosis = diagnosis_from(c["diagnosis"]);
    r.checks.push_back(std::move(cr));
  }
  for (const auto& d : j.value("diagnoses", nlohmann::json::array())) r.diagnoses.push_back(diagnosis_from(d));
  return r;
}

std::string subject_of(const CellResult& r) {
  if (!r.cell.contains("project")) return "";
  const auto& p = r.cell["project"];
  return p.value("label", p.value("path", ""));
}

}  // namespace opmatrix
