#include "crossload/abi_surfaces.h"

#include <filesystem>

#include <fmt/format.h>

#include "util/atomic_write.h"
#include "util/hash.h"

namespace fs = std::filesystem;

namespace opmatrix {

AbiSurfaces::AbiSurfaces(Engine& engine, std::string results_dir, const Progress& progress)
    : engine_(engine), dir_(std::move(results_dir) + "/_abi"), progress_(progress) {}

nlohmann::json AbiSurfaces::read_or_run(const Cell& cell, const std::string& image, const std::string& kind,
                                        const std::string& key, std::vector<std::string> args) {
  const std::string file = dir_ + "/" + cell.id + "." + kind + ".json";
  const std::string script = engine_.config().data_root + "/scripts/cell/abi_surface.py";
  const std::string full_key = Fnv64().add(key).add(read_text_file(script)).hex();
  nlohmann::json kept = nlohmann::json::parse(read_text_file(file), nullptr, false);
  if (kept.is_object() && kept.value("key", "") == full_key && kept.contains("report")) return kept["report"];
  StepCommand cmd;
  cmd.cell_id = cell.id;
  cmd.step = "abi-" + kind;
  cmd.argv = {engine_.paths(cell).scripts + "/python.sh", engine_.paths(cell).scripts + "/abi_surface.py"};
  cmd.argv.insert(cmd.argv.end(), args.begin(), args.end());
  fs::create_directories(dir_);
  cmd.log_path = dir_ + "/" + cell.id + "." + kind + ".log";
  cmd.capture_stdout = true;
  cmd.timeout_s = 600;
  ProcessResult r = engine_.run_step(image, cell, cmd);
  nlohmann::json report = nlohmann::json::parse(r.stdout_text, nullptr, false);
  if (!r.ok() || !report.is_object() || report.contains("error")) {
    progress_("cross-load", fmt::format("{}: abi_surface.py --{} failed ({}; see {}): no prediction with it", cell.id,
                                        kind, report.is_object() ? report.value("error", "no JSON") : "no JSON",
                                        cmd.log_path));
    return nlohmann::json();
  }
  write_file_atomically(file, nlohmann::json({{"key", full_key}, {"report", report}}).dump() + "\n");
  return report;
}

std::map<std::string, LibraryImports> AbiSurfaces::imports(const Cell& cell, const std::string& image,
                                                           const std::vector<std::string>& host_libraries,
                                                           const std::string& key) {
  std::vector<std::string> args = {"--imports"};
  const std::string host_build = engine_.host_build_dir(cell);
  const bool host = engine_.name() == "host";
  for (const auto& lib : host_libraries)
    args.push_back(host ? lib : engine_.paths(cell).build + "/" + fs::relative(lib, host_build).string());
  std::map<std::string, LibraryImports> out;
  const nlohmann::json report = read_or_run(cell, image, "imports", key, args);
  if (report.is_null()) return out;
  try {
    std::vector<LibraryImports> all = imports_from_json(report);
    for (std::size_t i = 0; i < all.size() && i < host_libraries.size(); ++i) out[host_libraries[i]] = all[i];
  } catch (const std::exception& e) {
    progress_("cross-load", fmt::format("{}: imports unreadable: {}", cell.id, e.what()));
  }
  return out;
}

std::optional<RuntimeExports> AbiSurfaces::exports(const Cell& cell, const std::string& image) {
  const nlohmann::json report = read_or_run(cell, image, "exports", image, {"--exports"});
  if (report.is_null()) return std::nullopt;
  try {
    return exports_from_json(report);
  } catch (const std::exception& e) {
    progress_("cross-load", fmt::format("{}: exports unreadable: {}", cell.id, e.what()));
    return std::nullopt;
  }
}

}  // namespace opmatrix
