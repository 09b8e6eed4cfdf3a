#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <mutex>
#include <optional>
#include <ostream>
#include <regex>
#include <thread>

#include <fmt/format.h>

#include "checks/registry.h"
#include "cli/commands.h"
#include "matrix/load.h"
#include "run/cell_lock.h"
#include "run/cell_runner.h"
#include "run/cache_key.h"
#include "run/source_commit.h"
#include "run/cross_load.h"
#include "run/cold_run_figures.h"
#include "run/engine.h"
#include "run/log_ticker.h"
#include "run/image_prefetch.h"
#include "run/run_cost_survey.h"
#include "util/atomic_write.h"
#include "util/data_root.h"
#include "util/hash.h"
#include "util/suggest.h"

namespace fs = std::filesystem;

namespace opmatrix {

namespace {

constexpr int kExitInterrupted = 130;

// Why a selected cell does not run with this engine on this machine, or "".
std::string not_runnable_reason(const Cell& cell, const RunOptions& opts, bool explicitly_chosen) {
  if (cell.runner == Runner::host && opts.engine != "host")
    return "runs in a GPU machine's own environment: run `opmatrix run --engine host --cell " + cell.id + "` there";
  if (explicitly_chosen) return "";
  if (!cell.runs("local")) {
    if (cell.runs("github")) return "GitHub-only cell (" + (cell.notes.empty() ? "its image needs an index this machine cannot reach" : cell.notes) + ")";
    return "needs a GPU machine";
  }
  if (!cell.in_default) return "not in the default local run (select it with --cell " + cell.id + ")";
  return "";
}

std::string absolute(const std::string& p) {
  std::string out = fs::absolute(p).lexically_normal().string();
  while (out.size() > 1 && out.back() == '/') out.pop_back();
  return out;
}

std::string repo_root_for(const RunOptions& opts) {
  if (!opts.repo_root.empty()) return absolute(opts.repo_root);
  return absolute(fs::path(opts.matrix).parent_path().empty() ? "." : fs::path(opts.matrix).parent_path().string());
}

// Says what the run will store and how long it takes (`cells`: those whose last result does not
// stand; `cached` more do); false (the numbers and --yes on `err`) when it cannot fit and the
// person did not say to go on anyway.
bool cost_fits_or_yes(Engine& engine, const std::vector<const Cell*>& cells, int cached, const std::string& results_dir,
                      int parallel_cells, const RunOptions& opts, std::ostream& err) {
  if (cells.empty()) {
    err << fmt::format("opmatrix run: every cell to run ({}) has a last result that still stands: nothing to build\n", cached);
    return true;
  }
  // One survey; a dry run says it as what would happen and starts nothing either way.
  const std::string who = opts.dry_run ? "opmatrix run --dry-run" : "opmatrix run";
  const RunCost cost = survey_run_cost(engine, cells, results_dir, parallel_cells, opts.images_only);
  err << fmt::format("{}: {} cell{} {}{}; {}:\n", who, cells.size(), cells.size() == 1 ? "" : "s",
                     opts.dry_run ? "would run" : "to run", cached ? fmt::format(" ({} more cached)", cached) : "",
                     opts.dry_run ? "what it would cost" : "what it costs before it starts")
      << render_run_cost(cost);
  const SpaceVerdict verdict = judge_space(cost.needs);
  if (opts.dry_run) {
    for (const auto& p : verdict.problems) err << who << ": would not fit: " << p << "\n";
    err << who << (verdict.fits ? ": it fits; nothing was started\n"
                                : ": `opmatrix run` would stop before starting (free space, select fewer cells with "
                                  "--cell, or --yes); nothing was started\n");
    return verdict.fits;
  }
  if (verdict.fits) return true;
  for (const auto& p : verdict.problems)
    err << (opts.yes ? "opmatrix run: warning: not enough disk: " : "opmatrix run: error: not enough disk: ") << p << "\n";
  if (opts.yes) return true;
  err << "opmatrix run: nothing was started; free space (e.g. `podman rmi` of images no cell uses), select fewer "
         "cells with --cell, or pass --yes to start anyway\n";
  return false;
}

// The closing line of what images cost the run in wall time (run/cold_run_figures.h), from the
// engine's record of builds and image waits and the cells' ends; "" when no cell ran and
// nothing was built, and for the host engine (no images).
template <typename Job>
std::string cold_run_line(SharedBuildEngine& engine, std::chrono::steady_clock::time_point origin,
                          std::chrono::steady_clock::time_point done, const std::vector<Job>& jobs,
                          const std::vector<std::optional<std::chrono::steady_clock::time_point>>& cell_ended) {
  if (engine.name() == "host") return "";
  auto at = [&](std::chrono::steady_clock::time_point t) { return std::chrono::duration<double>(t - origin).count(); };
  std::vector<TimeSpan> built, failed, cells;
  for (const auto& b : engine.builds()) (b.ok ? built : failed).push_back({at(b.start), at(b.end)});
  const auto waits = engine.image_waits();
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    if (!cell_ended[i]) continue;
    // A cell's own time starts when its image is in hand (its worker's ensure_image returned).
    for (const auto& w : waits)
      if (w.cell_id == jobs[i].cell->id) cells.push_back({at(w.end), at(*cell_ended[i])});
  }
  if (built.empty() && failed.empty() && cells.empty()) return "";
  return render_cold_run(cold_run_figures(built, failed, cells, at(done)));
}

}  // namespace

bool valid_memory_limit(const std::string& size) {
  static const std::regex re("[1-9][0-9]{0,12}[bkmgBKMG]?");
  return std::regex_match(size, re);
}

EngineConfig engine_config_for(const RunOptions& opts) {
  EngineConfig config;
  config.kind = opts.engine;
  config.repo_root = repo_root_for(opts);
  config.data_root = data_root();
  if (!opts.memory.empty()) config.memory = opts.memory;
  config.work_dir = absolute(opts.work_dir.empty() ? config.repo_root + "/build/opmatrix" : opts.work_dir);
  config.pip_cache = opts.pip_cache.empty() ? "/var/cache/opmatrix/pip" : absolute(opts.pip_cache);
  config.extra_ca = opts.extra_ca;
  if (config.extra_ca.empty() && opts.engine == "podman" && fs::exists("/etc/ssl/certs/ca-certificates.crt"))
    config.extra_ca = "/etc/ssl/certs/ca-certificates.crt";
  config.local_base_images = opts.engine == "podman";
  if (opts.as_root) config.user.clear();
  // Not root on the host (a GitHub runner with docker): the steps run as that user, who
  // already owns the build and ccache folders; handing them to nobody would need root.
  else if (::geteuid() != 0) config.user = std::to_string(::getuid()) + ":" + std::to_string(::getgid());
  return config;
}

int run_command(const RunOptions& opts, std::ostream& out, std::ostream& err) {
  if (!opts.memory.empty() && !valid_memory_limit(opts.memory)) {
    err << "opmatrix run: error: --memory must be a size such as 512m or 4g, not '" << opts.memory << "'\n";
    return kExitUsage;
  }
  if (!opts.repo_root.empty() && !fs::is_directory(opts.repo_root)) {
    err << "opmatrix run: error: --repo-root " << opts.repo_root << " is not a folder\n";
    return kExitUsage;
  }
  // With --repo-root, the matrix's containerfile and project paths are checked against that
  // folder (the one mounted as /src), not against the matrix file's folder.
  std::optional<Matrix> m;
  if (opts.repo_root.empty()) {
    m = load_matrix_or_report(opts.matrix, err);
  } else {
    LoadResult loaded = load_matrix_file(opts.matrix, repo_root_for(opts));
    for (const auto& d : loaded.diagnostics) err << format_diagnostic(d) << '\n';
    m = std::move(loaded.matrix);
  }
  if (!m) return kExitUsage;
  std::vector<std::string> ids;
  for (const auto& c : m->cells) ids.push_back(c.id);
  for (const auto& id : opts.cells)
    if (!m->find(id)) {
      err << fmt::format("opmatrix run: error: no cell '{}' in {}{}\n", id, opts.matrix, did_you_mean(id, ids));
      return kExitUsage;
    }
  if (opts.jobs < 1) {
    err << "opmatrix run: error: --jobs must be at least 1\n";
    return kExitUsage;
  }
  if (opts.prefetch < 0) {
    err << "opmatrix run: error: --prefetch must be 0 or more\n";
    return kExitUsage;
  }

  const EngineConfig config = engine_config_for(opts);
  if (config.data_root.empty()) {
    err << "opmatrix run: error: cannot find opmatrix's Containerfiles and in-cell scripts (share/opmatrix next to "
           "the binary's bin/, or $OPMATRIX_DATA_DIR): reinstall with `cmake --install BUILD --prefix PREFIX`\n";
    return kExitUsage;
  }
  // Every image goes through one acquisition per tag (run/image_prefetch.h): cells of one
  // image never build it twice, nor at once, and the look-ahead's builds reach the workers.
  auto engine = std::make_unique<SharedBuildEngine>(make_engine(config));
  const std::string results_dir = absolute(opts.results);

  // Selection: explicit --cell ids, else --where, else every cell (those that cannot run
  // here are reported as skipped with the reason, never silently dropped).
  struct Job {
    const Cell* cell;
    std::string skip_reason;
  };
  // With neither, the local default: the atlas's other cells are GitHub's (one line says how
  // many), not skips of this run.
  std::vector<Job> jobs;
  int outside_default = 0;
  for (const auto& c : m->cells) {
    const bool chosen = std::find(opts.cells.begin(), opts.cells.end(), c.id) != opts.cells.end();
    if (!opts.cells.empty() && !chosen) continue;
    if (opts.cells.empty() && !opts.where.empty() && !cell_selected(c, opts.where)) continue;
    if (opts.cells.empty() && opts.where.empty() && !cell_selected(c, "default")) {
      ++outside_default;
      continue;
    }
    jobs.push_back({&c, not_runnable_reason(c, opts, chosen || !opts.where.empty())});
  }
  if (outside_default > 0)
    err << fmt::format("opmatrix run: the local default, {} of the matrix's {} cells; the other {} run on GitHub (the "
                       "atlas: `opmatrix list --where github`), on a GPU machine, or here with --cell ID\n",
                       jobs.size(), m->cells.size(), outside_default);
  // A cell without a project checks opmatrix's own kernels/ and cases/: only opmatrix's
  // repository has them, not a library's folder with an installed opmatrix.
  for (const auto& j : jobs)
    if (j.skip_reason.empty() && !j.cell->project && !fs::is_regular_file(config.repo_root + "/cases/CMakeLists.txt")) {
      err << fmt::format("opmatrix run: error: {}:{}: cell '{}' has no 'project:', so it would check opmatrix's own "
                         "kernels/ and cases/, which {} does not hold; give the cell a project (e.g. "
                         "project: {{path: .}}; `opmatrix init` writes one)\n",
                         opts.matrix, j.cell->pos.line, j.cell->id, config.repo_root);
      return kExitUsage;
    }
  const bool any_to_run = std::any_of(jobs.begin(), jobs.end(), [](const Job& j) { return j.skip_reason.empty(); });
  // A dry run still says what the run would cost where the engine is missing (what is in its
  // storage then counts as nothing), and ends with the reason a run would stop.
  std::optional<std::string> engine_missing;
  if (any_to_run) {
    if (auto why = engine->unavailable_reason()) {
      if (!opts.dry_run) {
        err << "opmatrix run: error: " << *why << "\n";
        return kExitFailed;
      }
      engine_missing = *why;
    }
  }

  RunSettings settings;
  settings.results_dir = results_dir;
  const int cores = std::max(1u, std::thread::hardware_concurrency());
  // N cells x their build jobs stays within the cores: no oversubscription. More cells at
  // once than cores would still run N compilers (1 job each), so the cells at once are
  // capped at the cores; and at the cells that can run, so a lone cell gets every core.
  const int runnable = static_cast<int>(std::count_if(jobs.begin(), jobs.end(), [](const Job& j) { return j.skip_reason.empty(); }));
  const int parallel_cells = std::max(1, std::min({opts.jobs, cores, runnable}));
  settings.build_jobs = opts.build_jobs > 0 ? opts.build_jobs : std::max(1, cores / parallel_cells);

  install_stop_handlers();
  std::mutex out_mutex;
  const auto t0 = std::chrono::steady_clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
  Progress progress = [&](const std::string& cell, const std::string& line) {
    std::lock_guard<std::mutex> lock(out_mutex);
    err << fmt::format("[{:7.1f}s] {}: {}\n", elapsed(), cell, line) << std::flush;
  };

  const std::string sources = sources_hash(config.repo_root, config.data_root);
  const std::string commit = source_commit(config.repo_root);
  // The last result of a cell stands when its key matches; infrastructure failures never do.
  auto reusable = [&](const Cell& cell, const std::string& key) -> std::optional<CellResult> {
    if (opts.no_cache || key.empty()) return std::nullopt;
    nlohmann::json j = nlohmann::json::parse(read_text_file(results_dir + "/" + cell.id + ".json"), nullptr, false);
    if (j.is_discarded()) return std::nullopt;
    try {
      CellResult old = cell_result_from_json(j);
      if (old.cache_key != key || old.status == Status::error || old.status == Status::timeout) return std::nullopt;
      // A full disk or a killed step says nothing about the cell: never reuse those (the
      // registry says which diagnosis kinds are the infrastructure's, per check).
      for (const auto& c : old.checks)
        if (c.diagnosis && is_infrastructure(c.check, c.diagnosis->kind)) return std::nullopt;
      old.cached = true;
      return old;
    } catch (const std::exception&) {
      return std::nullopt;
    }
  };

  // A cell's cache key: its declaration, its image's tag, and the sources it checks.
  auto key_for = [&](const Job& job) -> std::string {
    if (!job.skip_reason.empty()) return "";
    // A path project's result also depends on its files; a PyPI one's on its pinned release (in the cell).
    std::string cell_sources =
        job.cell->project && !job.cell->project->path.empty()
            ? sources + tree_hash(config.repo_root, {job.cell->project->path}, {results_dir, config.work_dir})
            : sources;
    if (job.cell->project && !job.cell->project->samples.empty())  // it may live outside the project's folder
      cell_sources += Fnv64().add(read_text_file(config.repo_root + "/" + job.cell->project->samples)).hex();
    return cell_cache_key(*job.cell, engine->planned_image(*job.cell), cell_sources);
  };

  // What the cells that will really run cost (a cell whose last result stands costs nothing).
  std::vector<const Cell*> to_run;  // in job order: also the look-ahead's walk
  if (any_to_run || opts.dry_run) {
    int cached = 0;
    for (const auto& j : jobs) {
      const bool stands = j.skip_reason.empty() && !opts.images_only && reusable(*j.cell, key_for(j));
      if (opts.dry_run)
        out << fmt::format("{:<7} {}{}\n", !j.skip_reason.empty() ? "skip" : stands ? "cached" : "run", j.cell->id,
                           j.skip_reason.empty() ? "" : ": " + j.skip_reason);
      if (!j.skip_reason.empty()) continue;
      if (stands) ++cached;
      else to_run.push_back(j.cell);
    }
    const bool fits = cost_fits_or_yes(*engine, to_run, cached, results_dir, parallel_cells, opts, err);
    if (opts.dry_run) {
      if (engine_missing) err << "opmatrix run --dry-run: `opmatrix run` would stop: " << *engine_missing << "\n";
      return fits && !engine_missing ? kExitOk : kExitFailed;
    }
    if (!fits) return kExitFailed;
  }
  fs::create_directories(results_dir);

  // While one cell compiles, the next cells' images are built (downloads, mostly): the cold
  // wall time comes near max(downloads, compiles) rather than their sum. Not for
  // --images-only (no compile to hide builds behind; the workers are the builders) nor the
  // host engine (no images).
  std::optional<ImageLookAhead> look_ahead;
  if (!opts.images_only && opts.prefetch > 0 && engine->name() != "host" && to_run.size() >= 2) {
    LookAheadSettings la = default_look_ahead_settings(opts.prefetch, results_dir);
    la.say = progress;
    look_ahead.emplace(*engine, to_run, std::move(la));
  }

  std::vector<CellResult> results(jobs.size());
  std::vector<bool> written(jobs.size(), false);
  // Per job, the other run that held its build folder (the cell did not run here).
  std::vector<std::string> busy(jobs.size());
  const std::string holder = this_run_holder("opmatrix run, results in " + results_dir);
  // Per job, when run_cell returned (for the closing figures; only the worker of job i writes it).
  std::vector<std::optional<std::chrono::steady_clock::time_point>> cell_ended(jobs.size());
  std::atomic<std::size_t> next{0};
  std::atomic<bool> images_failed{false};
  auto worker = [&] {
    for (;;) {
      const std::size_t i = next++;
      if (i >= jobs.size() || stop_requested().load()) return;
      const Job& job = jobs[i];
      if (opts.images_only) {
        if (!job.skip_reason.empty()) continue;
        fs::create_directories(results_dir + "/logs/" + job.cell->id);
        progress(job.cell->id, "image ...");
        const std::string log = step_log_path(results_dir, job.cell->id, "image");
        ImageOutcome img;
        {
          LogTicker ticker(log, 10, [&](const std::string& line) { progress(job.cell->id, "image: " + line); });
          img = engine->ensure_image(*job.cell, log, find_step("image")->timeout_s);
        }
        progress(job.cell->id, fmt::format("image {} {} ({:.1f} s)", img.built ? "built" : "present",
                                           img.ok ? img.tag : "FAILED: " + img.error, img.seconds));
        if (!img.ok) images_failed = true;
        continue;
      }
      const std::string key = key_for(job);
      if (auto old = reusable(*job.cell, key)) {
        progress(job.cell->id, fmt::format("cached: key {} matches the last result ({})", key, to_string(old->status)));
        // Results written before opmatrix recorded these get them: the key proves the same
        // image tag and the same sources, so this run's image id and commit describe it too.
        if (old->image_id.empty() || old->commit.empty()) {
          if (old->image_id.empty()) old->image_id = engine->image_id(old->image);
          if (old->commit.empty()) old->commit = commit;
          old->cached = false;  // on disk, "cached" says how the result was made, not this run
          try {
            write_file_atomically(results_dir + "/" + job.cell->id + ".json", to_json(*old).dump(2) + "\n");
          } catch (const std::exception& e) {
            progress(job.cell->id, std::string("cannot write results: ") + e.what());
          }
          old->cached = true;
        }
        written[i] = true;
        results[i] = std::move(*old);
        continue;
      }
      // Two runs never build one cell in one tree: the second stops that cell and names the first.
      std::optional<CellWorkLock> cell_lock;
      if (job.skip_reason.empty()) {
        const std::string cell_dir = fs::path(engine->host_build_dir(*job.cell)).parent_path().string();
        std::string other;
        try {
          cell_lock = CellWorkLock::try_acquire(cell_dir, holder, &other);
        } catch (const std::exception& e) {
          other = e.what();
        }
        if (!cell_lock) {
          busy[i] = other;
          progress(job.cell->id, fmt::format("not run: its build folder {} is in use by another opmatrix run: {}; "
                                             "wait for that one to end, or give this run another --work-dir",
                                             cell_dir, other));
          continue;
        }
      }
      RunSettings cell_settings = settings;
      if (look_ahead && job.skip_reason.empty())
        cell_settings.image_log_from_look_ahead = look_ahead->cell_starting(*job.cell);
      CellResult r = job.skip_reason.empty() ? run_cell(*m, *job.cell, *engine, cell_settings, progress)
                                             : skipped_cell(*job.cell, job.skip_reason);
      if (job.skip_reason.empty()) cell_ended[i] = std::chrono::steady_clock::now();
      r.cache_key = key;
      r.commit = commit;
      if (!job.skip_reason.empty()) progress(job.cell->id, "skip: " + job.skip_reason);
      if (stop_requested().load() && job.skip_reason.empty()) {
        // An interrupted cell keeps no results: the next run does it again.
        progress(job.cell->id, "interrupted; no results written");
        continue;
      }
      try {
        write_file_atomically(results_dir + "/" + job.cell->id + ".json", to_json(r).dump(2) + "\n");
        written[i] = true;
      } catch (const std::exception& e) {
        progress(job.cell->id, std::string("cannot write results: ") + e.what());
      }
      progress(job.cell->id, fmt::format("{} ({:.1f} s){}", to_string(r.status), r.seconds,
                                         r.meets_expectations ? "" : "  <-- not as expected"));
      results[i] = std::move(r);
    }
  };
  const auto workers_started = std::chrono::steady_clock::now();
  std::vector<std::thread> threads;
  for (int t = 0; t < parallel_cells; ++t) threads.emplace_back(worker);
  for (auto& t : threads) t.join();
  if (look_ahead) look_ahead->finish();  // every cell started: nothing left ahead, or a stop
  const std::string cold_run = cold_run_line(*engine, workers_started, std::chrono::steady_clock::now(), jobs, cell_ended);
  if (opts.images_only) {
    if (!cold_run.empty()) out << cold_run << "\n";
    return stop_requested().load() ? kExitInterrupted : images_failed ? kExitFailed : kExitOk;
  }
  // Builds of several cells: load each in every other's runtime (the ABI cross-load table).
  if (opts.cross_load && runnable >= 2 && !stop_requested().load()) {
    CrossLoadSettings xs;
    xs.results_dir = results_dir;
    run_cross_load(*m, *engine, xs, progress);
  }

  int ran = 0, skipped = 0, unexpected = 0;
  out << fmt::format("{:<40} {:<8} {:>8}  {}\n", "cell", "status", "seconds", "summary");
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    if (!written[i]) {
      if (!busy[i].empty()) ++unexpected;
      out << fmt::format("{:<40} {:<8} {:>8}  {}\n", jobs[i].cell->id, "-", "-",
                         busy[i].empty() ? "not run (interrupted)" : "not run: build folder in use by " + busy[i]);
      continue;
    }
    const CellResult& r = results[i];
    std::string summary;
    if (r.cached) {
      ++ran;
      summary = "cached (key " + r.cache_key + ")";
    } else if (r.status == Status::skip) {
      ++skipped;
      summary = r.checks.empty() ? "" : r.checks.front().message;
    } else {
      ++ran;
      int pass = 0, bad = 0, other = 0;
      for (const auto& c : r.checks) (c.status == Status::pass ? pass : is_bad(c.status) ? bad : other)++;
      summary = fmt::format("{} checks pass, {} expected/skipped, {} unexpected", pass, other, bad);
    }
    if (!r.meets_expectations) ++unexpected;
    out << fmt::format("{:<40} {:<8} {:>8.1f}  {}\n", r.cell.value("id", ""), to_string(r.status),
                       r.cached ? 0.0 : r.seconds, summary);
  }
  out << fmt::format("{} cells run, {} skipped, {} not as expected; results in {} ({:.1f} s)\n", ran, skipped,
                     unexpected, results_dir, elapsed());
  if (!cold_run.empty()) out << cold_run << "\n";
  if (stop_requested().load()) {
    err << "opmatrix run: interrupted; finished cells kept their results, rerun to do the rest\n";
    return kExitInterrupted;
  }
  return unexpected == 0 ? kExitOk : kExitFailed;
}

}  // namespace opmatrix
