// `opmatrix atlas`: the op libraries of an atlas file x its runtimes (atlas/atlas_file.h).
//   validate  reads the file (FILE:LINE:COL errors) and says how many pairs it holds;
//   run       runs the pairs (all, or those of --runtime/--library) by way of `opmatrix run`,
//             runtime-major, each pair cached by its key like any cell;
//   report    renders the published atlas from the results (atlas/atlas_report.h);
//   runtimes  the runtimes (all, or those of --runtime) as a GitHub job matrix, one line of JSON
//             ({"include": [{"runtime": ID}, ...]}) for $GITHUB_OUTPUT: .github/workflows/atlas.yml
//             runs one job per runtime.
#include <filesystem>
#include <ostream>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "atlas/atlas_file.h"
#include "atlas/atlas_report.h"
#include "cli/commands.h"
#include "pipeline/image_by_image.h"
#include "matrix/diagnostic.h"
#include "report/results_set.h"
#include "util/atomic_write.h"
#include "util/suggest.h"

namespace fs = std::filesystem;

namespace opmatrix {

namespace {

std::optional<Atlas> load_or_report(const std::string& path, std::ostream& err) {
  AtlasLoad loaded = load_atlas_file(path);
  for (const auto& d : loaded.diagnostics) err << format_diagnostic(d) << '\n';
  return std::move(loaded.atlas);
}

// The --runtime/--library names that the atlas does not hold, as usage errors.
bool names_known(const AtlasOptions& opts, const Atlas& a, std::ostream& err) {
  std::vector<std::string> libraries;
  for (const auto& l : a.libraries) libraries.push_back(l.name);
  bool ok = true;
  for (const auto& r : opts.runtimes)
    if (std::find(a.runtimes.begin(), a.runtimes.end(), r) == a.runtimes.end()) {
      err << fmt::format("opmatrix atlas: error: --runtime {}: not a runtime of {}{}\n", r, a.file,
                         did_you_mean(r, a.runtimes));
      ok = false;
    }
  for (const auto& l : opts.libraries)
    if (std::find(libraries.begin(), libraries.end(), l) == libraries.end()) {
      err << fmt::format("opmatrix atlas: error: --library {}: not a library of {}{}\n", l, a.file,
                         did_you_mean(l, libraries));
      ok = false;
    }
  return ok;
}

bool chosen(const std::vector<std::string>& only, const std::string& name) {
  return only.empty() || std::find(only.begin(), only.end(), name) != only.end();
}

// The selected pairs of one runtime, in the atlas's order.
std::vector<std::string> pairs_of(const AtlasOptions& opts, const Atlas& a, const std::string& runtime) {
  std::vector<std::string> ids;
  for (const auto& l : a.libraries) {
    if (!chosen(opts.libraries, l.name)) continue;
    const std::size_t skip = opts.newest > 0 && l.releases.size() > static_cast<std::size_t>(opts.newest)
                                 ? l.releases.size() - static_cast<std::size_t>(opts.newest)
                                 : 0;
    for (std::size_t i = skip; i < l.releases.size(); ++i) ids.push_back(atlas_pair_id(l.name, l.releases[i], runtime));
  }
  return ids;
}

RunOptions pair_run(const AtlasOptions& opts) {
  RunOptions run = opts.run;
  run.matrix = run.atlas;
  run.cross_load = false;  // a pair's library is judged in its own runtime; the atlas is the cross table
  return run;
}

// With --disk-budget: one runtime at a time (pipeline/image_by_image.h).
int run_within_budget(const AtlasOptions& opts, const Atlas& a, std::ostream& out, std::ostream& err) {
  std::vector<std::vector<std::string>> groups;
  for (const auto& r : a.runtimes)
    if (chosen(opts.runtimes, r)) groups.push_back(pairs_of(opts, a, r));
  return run_image_by_image(pair_run(opts), a.pairs, groups, "opmatrix atlas", out, err);
}

int run_pairs(const AtlasOptions& opts, const Atlas& a, std::ostream& out, std::ostream& err) {
  if (opts.run.disk_budget_gb > 0 && !opts.run.dry_run && !opts.run.images_only) return run_within_budget(opts, a, out, err);
  RunOptions run = pair_run(opts);
  for (const auto& r : a.runtimes)
    if (chosen(opts.runtimes, r))
      for (auto& id : pairs_of(opts, a, r)) run.cells.push_back(std::move(id));
  // A red pair is a finding, not a failed run (results/cell_result.h, settle_status): the run
  // exits 1 only where a pair could not be measured (an infrastructure error, to run again).
  return run_command(run, out, err);
}

int render(const AtlasOptions& opts, const Atlas& a, std::ostream& out, std::ostream& err) {
  const ResultsSet results = load_results(opts.run.results);
  for (const auto& e : results.errors) err << "opmatrix atlas report: warning: " << e << '\n';
  const AtlasView view = view_atlas(a, results);
  std::size_t measured = 0, with_result = 0;
  for (const auto& p : view.pairs) {
    measured += p.measured_here() ? 1 : 0;
    with_result += p.result ? 1 : 0;
  }
  if (with_result == 0) {
    err << fmt::format("opmatrix atlas report: error: no results of {}'s pairs in {}: run `opmatrix atlas run --atlas "
                       "{} --results {}` first\n", a.file, opts.run.results, a.file, opts.run.results);
    return kExitNothingToReport;
  }
  try {
    const auto files = render_atlas(view, results);
    // atlas.json last: it names the evidence files, which are there before it does.
    auto write = [&](const std::string& name) {
      const fs::path file = fs::path(opts.output) / name;
      fs::create_directories(file.parent_path());
      write_file_atomically(file.string(), files.at(name));
    };
    for (const auto& [name, text] : files)
      if (name != "atlas.json") write(name);
    write("atlas.json");
    // An evidence file of a library the atlas no longer holds would be read by nothing, and
    // would read as current: it goes.
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(fs::path(opts.output) / "evidence", ec))
      if (e.path().extension() == ".json" && !files.count("evidence/" + e.path().filename().string()))
        fs::remove(e.path(), ec);
  } catch (const std::exception& e) {
    err << "opmatrix atlas report: error: " << e.what() << '\n';
    return kExitFailed;
  }
  out << fmt::format("{}: {} libraries x {} runtimes, {} of {} pairs measured\n", opts.output, a.libraries.size(),
                     a.runtimes.size(), measured, view.pairs.size());
  return kExitOk;
}

}  // namespace

int atlas_command(const AtlasOptions& opts, std::ostream& out, std::ostream& err) {
  std::optional<Atlas> a = load_or_report(opts.run.atlas, err);
  if (!a) return kExitUsage;
  if (!names_known(opts, *a, err)) return kExitUsage;
  if (opts.action == "run") return run_pairs(opts, *a, out, err);
  if (opts.action == "report") return render(opts, *a, out, err);
  if (opts.action == "runtimes") {
    nlohmann::json include = nlohmann::json::array();
    for (const auto& r : a->runtimes)
      if (chosen(opts.runtimes, r)) include.push_back({{"runtime", r}});
    out << nlohmann::json{{"include", include}}.dump() << '\n';
    return kExitOk;
  }
  std::size_t releases = 0;
  for (const auto& l : a->libraries) releases += l.releases.size();
  out << fmt::format("{}: ok: {} libraries, {} releases x {} runtimes = {} pairs\n", a->file, a->libraries.size(),
                     releases, a->runtimes.size(), a->pairs.cells.size());
  return kExitOk;
}

}  // namespace opmatrix
