#include <filesystem>
#include <map>
#include <ostream>

#include <fmt/format.h>

#include "cli/commands.h"
#include "crossload/cross_load.h"
#include "crossload/cross_load_jobs.h"
#include "engine/engine.h"
#include "engine/process.h"
#include "util/atomic_write.h"

namespace fs = std::filesystem;

namespace opmatrix {

namespace {

void print_counts(const nlohmann::json& j, const std::string& written, std::ostream& out) {
  std::map<std::string, int> counts;
  for (const auto& p : j["pairs"]) counts[p.value("outcome", "")]++;
  out << fmt::format("{} builds x {} runtimes:", j["builds"].size(), j["runtimes"].size());
  for (const auto& [outcome, n] : counts) out << fmt::format(" {} {}", n, outcome);
  out << fmt::format("\nwritten {}\n", written);
}

// --merge: the runtime jobs' files as the one a local run writes (crossload/cross_load_jobs.h).
int merge_command(const CrossLoadOptions& opts, const std::string& results_dir, std::ostream& out, std::ostream& err) {
  std::vector<nlohmann::json> parts;
  for (const auto& file : opts.merge) {
    if (!fs::is_regular_file(file)) {
      err << "opmatrix cross-load: error: --merge " << file << " is not a file\n";
      return kExitUsage;
    }
    parts.push_back(nlohmann::json::parse(read_text_file(file), nullptr, false));
  }
  try {
    const nlohmann::json merged = merge_cross_loads(parts, opts.merge);
    fs::create_directories(results_dir);
    const std::string path = results_dir + "/" + kCrossLoadFile;
    write_file_atomically(path, merged.dump(2) + "\n");
    print_counts(merged, path, out);
    return kExitOk;
  } catch (const std::exception& e) {
    err << "opmatrix cross-load: error: --merge: " << e.what() << "\n";
    return kExitUsage;
  }
}

}  // namespace

int cross_load_command(const CrossLoadOptions& opts, std::ostream& out, std::ostream& err) {
  const std::string results_dir = fs::absolute(opts.run.results).lexically_normal().string();
  if (!opts.merge.empty()) {
    if (!opts.runtimes.empty() || opts.subjects_only) {
      err << "opmatrix cross-load: error: --merge loads nothing: it takes no --runtime or --subjects-only\n";
      return kExitUsage;
    }
    return merge_command(opts, results_dir, out, err);
  }
  auto m = load_matrix_or_report(opts.run.matrix, err);
  if (!m) return kExitUsage;
  for (const auto& id : opts.runtimes)
    if (!m->find(id)) {
      err << fmt::format("opmatrix cross-load: error: --runtime {}: no such cell in {}\n", id, opts.run.matrix);
      return kExitUsage;
    }
  const EngineConfig config = engine_config_for(opts.run);
  auto engine = make_engine(config);
  if (auto why = engine->unavailable_reason()) {
    err << "opmatrix cross-load: error: " << *why << "\n";
    return kExitFailed;
  }
  CrossLoadSettings settings;
  settings.results_dir = results_dir;
  settings.no_cache = opts.run.no_cache;
  settings.runtimes = opts.runtimes;
  settings.subjects_only = opts.subjects_only;
  install_stop_handlers();
  const nlohmann::json j = run_cross_load(*m, *engine, settings,
                                          [&](const std::string& who, const std::string& line) {
                                            err << who << ": " << line << "\n" << std::flush;
                                          });
  if (stop_requested().load()) return 130;  // interrupted, as `run`
  if (opts.subjects_only) return kExitOk;
  print_counts(j, settings.results_dir + "/" + kCrossLoadFile, out);
  return j["builds"].empty() ? kExitFailed : kExitOk;
}

}  // namespace opmatrix
