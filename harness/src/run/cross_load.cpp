#include "run/cross_load.h"

#include <chrono>
#include <filesystem>

#include <fmt/format.h>

#include "results/cell_result.h"
#include "run/library_checks.h"
#include "util/atomic_write.h"
#include "util/clock.h"
#include "util/hash.h"
#include "version.h"

namespace fs = std::filesystem;

namespace opmatrix {

namespace {

constexpr const char* kLibrary = "kernels/libopmatrix_ops.so";

struct Side {
  const Cell* cell;
  CellResult result;
  std::string library;  // host path (builds only)
  std::string library_hash;
};

bool has_check(const CellResult& r, const std::string& check, bool must_pass) {
  for (const auto& c : r.checks)
    if (c.check == check && c.op.empty() && (!must_pass || c.status == Status::pass)) return true;
  return false;
}

std::string ops_list(const Matrix& m) {
  std::string out;
  for (const auto& op : m.ops) out += (out.empty() ? "" : ",") + op;
  return out;
}

std::string scripts_hash(const std::string& data_root) {
  Fnv64 h;
  for (const char* f : {"cross_load.py", "load_library.py", "dispatcher.py", "python.sh"})
    h.add(read_text_file(data_root + "/scripts/cell/" + f));
  return h.hex();
}

}  // namespace

nlohmann::json cross_load_outcome(const nlohmann::json& entry) {
  nlohmann::json out = {{"outcome", "error"}, {"summary", ""}, {"symbols", nlohmann::json::array()}};
  if (entry.value("timed_out", false)) {
    out["outcome"] = "timeout";
    out["summary"] = "loading did not finish";
    return out;
  }
  const nlohmann::json report = entry.contains("report") ? entry["report"] : nlohmann::json();
  if (entry.contains("signal") && entry["signal"].is_string()) {
    out["outcome"] = "crash";
    out["summary"] = "the process died with " + entry["signal"].get<std::string>() + " while loading";
    return out;
  }
  if (!report.is_object()) {
    out["summary"] = "no report (exit " + entry.value("exit_code", nlohmann::json()).dump() + "): " +
                     entry.value("stderr", std::string()).substr(0, 300);
    return out;
  }
  if (report.contains("error") && report["error"].is_string()) {
    out["summary"] = report["error"];
    return out;
  }
  if (!report.contains("libraries") || report["libraries"].empty()) return out;
  const nlohmann::json& lib = report["libraries"][0];
  if (!lib.value("loaded", false)) {
    const std::string kind = lib.value("error_kind", std::string("other"));
    out["outcome"] = kind == "undefined_symbol" ? "undefined_symbol" : kind == "missing_library" ? "missing_library" : "error";
    out["summary"] = load_failure_summary(lib);
    if (lib.contains("undefined"))
      for (const auto& s : lib["undefined"]) out["symbols"].push_back(s.value("demangled", s.value("symbol", "")));
    if (lib.contains("undefined_count")) out["undefined_count"] = lib["undefined_count"];
    return out;
  }
  std::vector<std::string> missing;
  if (report.contains("ops"))
    for (const auto& [op, keys] : report["ops"].items())
      if (!keys.contains("CPU") || !keys["CPU"].is_boolean() || !keys["CPU"].get<bool>()) missing.push_back(op);
  if (!missing.empty()) {
    out["outcome"] = "not_registered";
    out["summary"] = fmt::format("loads, but {} have no CPU kernel", fmt::join(missing, ", "));
    return out;
  }
  out["outcome"] = "loads";
  out["summary"] = "loads and registers every op";
  return out;
}

nlohmann::json run_cross_load(const Matrix& matrix, Engine& engine, const CrossLoadSettings& settings,
                              const Progress& progress) {
  const std::string path = settings.results_dir + "/" + kCrossLoadFile;
  nlohmann::json old = nlohmann::json::parse(read_text_file(path), nullptr, false);
  std::vector<Side> builds, runtimes;
  for (const auto& cell : matrix.cells) {
    if (cell.project) continue;  // other op libraries have their own names; ours is compared
    nlohmann::json j = nlohmann::json::parse(read_text_file(settings.results_dir + "/" + cell.id + ".json"), nullptr, false);
    if (!j.is_object()) continue;
    Side s{&cell, {}, "", ""};
    try {
      s.result = cell_result_from_json(j);
    } catch (const std::exception&) {
      continue;
    }
    if (s.result.engine != engine.name() || s.result.image.empty()) continue;
    if (has_check(s.result, "versions", false)) runtimes.push_back(s);
    const std::string lib = engine.host_build_dir(cell) + "/" + kLibrary;
    if (has_check(s.result, "build", true) && fs::is_regular_file(lib)) {
      s.library = lib;
      s.library_hash = Fnv64().add(read_text_file(lib)).hex();
      builds.push_back(s);
    }
  }
  const std::string scripts = scripts_hash(engine.config().data_root);
  nlohmann::json out = {{"schema_version", 1},
                        {"kind", "opmatrix-cross-load"},
                        {"harness_version", kOpmatrixVersion},
                        {"generated_at", now_iso8601()},
                        {"engine", engine.name()},
                        {"builds", nlohmann::json::array()},
                        {"runtimes", nlohmann::json::array()},
                        {"pairs", nlohmann::json::array()}};
  for (const auto& b : builds)
    out["builds"].push_back({{"cell", b.cell->id},
                             {"torch", b.result.versions.value("torch", nlohmann::json()).is_string()
                                           ? b.result.versions["torch"] : nlohmann::json(b.cell->torch)},
                             {"cuda", b.cell->cuda},
                             {"library_hash", b.library_hash}});
  if (builds.empty() || runtimes.empty()) {
    write_file_atomically(path, out.dump(2) + "\n");
    return out;
  }
  const std::string log_dir = settings.results_dir + "/logs/cross-load";
  fs::create_directories(log_dir);
  for (const auto& rt : runtimes) {
    Fnv64 key;
    key.add("opmatrix-cross-load-v1").add(kOpmatrixVersion).add(rt.result.image).add(scripts).add(ops_list(matrix));
    for (const auto& b : builds) key.add(b.cell->id).add(b.library_hash);
    nlohmann::json row = {{"cell", rt.cell->id},
                          {"torch", rt.result.versions.value("torch", nlohmann::json(rt.cell->torch))},
                          {"cuda", rt.cell->cuda},
                          {"image", rt.result.image},
                          {"key", key.hex()}};
    // The same runtime and the same builds: the last outcomes stand.
    bool reused = false;
    if (!settings.no_cache && old.is_object() && old.contains("runtimes"))
      for (const auto& o : old["runtimes"])
        if (o.value("cell", "") == rt.cell->id && o.value("key", "") == key.hex()) {
          for (const auto& p : old["pairs"])
            if (p.value("run_in", "") == rt.cell->id) out["pairs"].push_back(p);
          row["seconds"] = o.value("seconds", 0.0);
          row["cached"] = true;
          reused = true;
        }
    if (reused) {
      progress("cross-load", fmt::format("{}: cached (key {})", rt.cell->id, key.hex()));
      out["runtimes"].push_back(row);
      continue;
    }
    StepCommand cmd;
    cmd.cell_id = rt.cell->id;
    cmd.step = "cross-load";
    cmd.argv = {engine.paths(*rt.cell).scripts + "/python.sh", engine.paths(*rt.cell).scripts + "/cross_load.py",
                "--namespace", "opmatrix", "--ops", ops_list(matrix)};
    const bool host = engine.name() == "host";
    for (const auto& b : builds) {
      const std::string inside = "/xload/" + b.cell->id;
      if (!host) cmd.read_only_mounts.emplace_back(fs::path(b.library).parent_path().string(), inside);
      cmd.argv.push_back(host ? b.library : inside + "/libopmatrix_ops.so");
    }
    cmd.log_path = log_dir + "/" + rt.cell->id + ".log";
    cmd.capture_stdout = true;
    cmd.timeout_s = settings.timeout_s;
    progress("cross-load", fmt::format("{}: loading {} builds ...", rt.cell->id, builds.size()));
    ProcessResult r = engine.run_step(rt.result.image, *rt.cell, cmd);
    row["seconds"] = r.seconds;
    row["command"] = engine.display(rt.result.image, *rt.cell, cmd);
    nlohmann::json report = nlohmann::json::parse(r.stdout_text, nullptr, false);
    if (!r.ok() || !report.is_object() || !report.contains("results")) {
      row["error"] = r.timed_out ? "timed out" : fmt::format("the cross-load step failed (exit {}, see {})", r.exit_code, cmd.log_path);
      for (const auto& b : builds)
        out["pairs"].push_back({{"built_in", b.cell->id}, {"run_in", rt.cell->id}, {"outcome", "error"},
                                {"summary", row["error"]}, {"symbols", nlohmann::json::array()}});
      out["runtimes"].push_back(row);
      progress("cross-load", fmt::format("{}: {}", rt.cell->id, row["error"].get<std::string>()));
      if (r.interrupted) break;
      continue;
    }
    int loads = 0;
    for (std::size_t i = 0; i < builds.size() && i < report["results"].size(); ++i) {
      nlohmann::json pair = cross_load_outcome(report["results"][i]);
      pair["built_in"] = builds[i].cell->id;
      pair["run_in"] = rt.cell->id;
      loads += pair["outcome"] == "loads";
      out["pairs"].push_back(pair);
    }
    out["runtimes"].push_back(row);
    progress("cross-load", fmt::format("{}: {} of {} builds load and register ({:.1f} s)", rt.cell->id, loads,
                                       builds.size(), r.seconds));
  }
  write_file_atomically(path, out.dump(2) + "\n");
  return out;
}

}  // namespace opmatrix
