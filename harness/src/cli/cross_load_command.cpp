#include <filesystem>
#include <map>
#include <ostream>

#include <fmt/format.h>

#include "cli/commands.h"
#include "run/cross_load.h"
#include "run/engine.h"
#include "run/process.h"

namespace fs = std::filesystem;

namespace opmatrix {

int cross_load_command(const RunOptions& opts, std::ostream& out, std::ostream& err) {
  auto m = load_matrix_or_report(opts.matrix, err);
  if (!m) return kExitUsage;
  const EngineConfig config = engine_config_for(opts);
  auto engine = make_engine(config);
  if (auto why = engine->unavailable_reason()) {
    err << "opmatrix cross-load: error: " << *why << "\n";
    return kExitFailed;
  }
  CrossLoadSettings settings;
  settings.results_dir = fs::absolute(opts.results).lexically_normal().string();
  settings.no_cache = opts.no_cache;
  install_stop_handlers();
  const nlohmann::json j = run_cross_load(*m, *engine, settings,
                                          [&](const std::string& who, const std::string& line) {
                                            err << who << ": " << line << "\n" << std::flush;
                                          });
  std::map<std::string, int> counts;
  for (const auto& p : j["pairs"]) counts[p.value("outcome", "")]++;
  out << fmt::format("{} builds x {} runtimes:", j["builds"].size(), j["runtimes"].size());
  for (const auto& [outcome, n] : counts) out << fmt::format(" {} {}", n, outcome);
  out << fmt::format("\nwritten {}/{}\n", settings.results_dir, kCrossLoadFile);
  if (stop_requested().load()) return 130;  // interrupted, as `run`
  return j["builds"].empty() ? kExitFailed : kExitOk;
}

}  // namespace opmatrix
