#include "crossload/cross_load_jobs.h"

#include <set>
#include <stdexcept>

#include <fmt/format.h>

#include "matrix/to_json.h"
#include "crossload/cross_load.h"

namespace opmatrix {

nlohmann::json cross_load_job_matrix(const std::vector<const Cell*>& selected) {
  std::vector<const Cell*> runtimes;
  for (const Cell* c : selected)
    if (!c->project && c->runner == Runner::container) runtimes.push_back(c);
  nlohmann::json include = nlohmann::json::array();
  if (runtimes.size() < 2) return {{"include", include}};
  nlohmann::json builds = nlohmann::json::array();
  for (const Cell* c : runtimes) builds.push_back(c->id);
  for (const Cell* c : runtimes) {
    const nlohmann::json cell_entry = github_job_entry(*c);  // the same runner and engine as its cell job
    include.push_back({{"id", c->id}, {"runs_on", cell_entry["runs_on"]}, {"engine", cell_entry["engine"]},
                       {"builds", builds}});
  }
  return {{"include", include}};
}

nlohmann::json merge_cross_loads(const std::vector<nlohmann::json>& parts, const std::vector<std::string>& names) {
  auto name = [&](std::size_t i) { return i < names.size() ? names[i] : fmt::format("part {}", i + 1); };
  nlohmann::json out = empty_cross_load_file("");  // the engine: the parts'
  out["merged_from"] = parts.size();
  bool engine_known = false;
  std::set<std::string> builds_seen, runtimes_seen;
  std::vector<std::string> unavailable, disagree;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const nlohmann::json& p = parts[i];
    if (!p.is_object() || p.value("kind", "") != "opmatrix-cross-load" || !p.contains("pairs") || !p["pairs"].is_array())
      throw std::runtime_error(name(i) + " is not a cross-load file (kind opmatrix-cross-load, as `opmatrix cross-load` writes)");
    if (p.value("schema_version", 0) > kCrossLoadSchemaVersion)
      throw std::runtime_error(fmt::format("{} has schema_version {}: newer than this opmatrix reads ({})", name(i),
                                           p.value("schema_version", 0), kCrossLoadSchemaVersion));
    if (!engine_known) {
      out["engine"] = p.value("engine", "");
      engine_known = true;
    } else if (p.value("engine", "") != out["engine"])
      throw std::runtime_error(fmt::format("{} was loaded with engine {}, the others with {}", name(i),
                                           p.value("engine", ""), out["engine"].get<std::string>()));
    for (const auto& b : p.value("builds", nlohmann::json::array())) {
      const std::string key = b.value("cell", "") + "|" + b.value("abi", "") + "|" + b.value("namespace", "") + "|" +
                              b.value("library_hash", "");
      if (builds_seen.insert(key).second) out["builds"].push_back(b);
    }
    for (const auto& r : p.value("runtimes", nlohmann::json::array()))
      if (runtimes_seen.insert(r.value("cell", "")).second) out["runtimes"].push_back(r);
    for (const auto& pair : p["pairs"]) out["pairs"].push_back(pair);
    for (const auto& u : p.value("runtimes_unavailable", nlohmann::json::array()))
      if (u.is_string()) unavailable.push_back(u);
    if (p.contains("prediction") && p["prediction"].contains("disagree"))
      for (const auto& d : p["prediction"]["disagree"]) disagree.push_back(d);
  }
  // A runtime one job could not load into may be another job's own runtime.
  nlohmann::json still_unavailable = nlohmann::json::array();
  std::set<std::string> said;
  for (const auto& u : unavailable) {
    const std::string cell = u.substr(0, u.find(':'));
    if (!runtimes_seen.count(cell) && said.insert(u).second) still_unavailable.push_back(u);
  }
  if (!still_unavailable.empty()) out["runtimes_unavailable"] = still_unavailable;
  int compared = 0, agree = 0;
  for (const auto& pair : out["pairs"])
    if (pair.contains("prediction_agrees")) {
      ++compared;
      agree += pair["prediction_agrees"].get<bool>();
    }
  out["prediction"] = {{"pairs", compared}, {"agree", agree}, {"disagree", disagree}};
  return out;
}

}  // namespace opmatrix
