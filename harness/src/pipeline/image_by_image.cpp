#include "pipeline/image_by_image.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <future>
#include <map>
#include <memory>
#include <ostream>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "engine/engine.h"
#include "engine/process.h"
#include "images/image_prefetch.h"
#include "images/run_cost.h"
#include "pipeline/cell_cache.h"
#include "pipeline/disk_budget.h"
#include "pipeline/engine_config.h"
#include "pipeline/open_run.h"
#include "pipeline/plan_run.h"
#include "pipeline/run_state.h"
#include "pipeline/select_cells.h"

namespace opmatrix {

std::vector<std::vector<std::string>> group_cells_by_image(const std::vector<std::pair<std::string, std::string>>& cells) {
  std::vector<std::vector<std::string>> groups;
  std::map<std::string, std::size_t> group_of_image;
  for (const auto& [id, image] : cells) {
    if (image.empty()) {
      groups.push_back({id});
      continue;
    }
    auto [it, first] = group_of_image.emplace(image, groups.size());
    if (first) groups.emplace_back();
    groups[it->second].push_back(id);
  }
  return groups;
}

std::string no_room_to_build_ahead(const AheadRoom& room) {
  const double held = room.kept_bytes + room.current_bytes + room.next_bytes;
  if (held > room.budget_bytes)
    return room.kept_bytes + room.current_bytes > 0
               ? fmt::format("it needs about {} and the budget of {} holds {} of images this run keeps",
                             human_bytes(room.next_bytes), human_bytes(room.budget_bytes),
                             human_bytes(room.kept_bytes + room.current_bytes))
               : fmt::format("it needs about {}, over the budget of {}", human_bytes(room.next_bytes),
                             human_bytes(room.budget_bytes));
  if (room.free_bytes && room.next_bytes >= *room.free_bytes)
    return fmt::format("the storage has {} free and it needs about {}", human_bytes(*room.free_bytes),
                       human_bytes(room.next_bytes));
  return "";
}

namespace {

// A cell's image acquired outside its run: its log where the run keeps it (logs/<cell>/image.log),
// whose folder the cell's run has not made yet.
ImageOutcome acquire_image(Engine& engine, const Cell& cell, const LookAheadSettings& ahead) {
  const std::string log = ahead.log_path(cell);
  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::path(log).parent_path(), ec);
  return engine.ensure_image(cell, log, ahead.image_timeout(cell));
}

// Which groups have a cell to run: a group whose cells' results all stand needs no image.
std::vector<bool> groups_with_work(const RunOptions& opts, const std::vector<std::vector<std::string>>& groups) {
  std::vector<bool> work(groups.size(), true);
  RunOptions all = opts;
  all.cells.clear();
  for (const auto& g : groups) all.cells.insert(all.cells.end(), g.begin(), g.end());
  std::ostringstream quiet;  // the matrix's warnings and any error: each group's own run says them
  RunState run(all, quiet, quiet);
  if (open_run(run) || select_cells(run)) return work;
  plan_run(run);
  std::map<std::string, bool> runs;
  for (const auto& job : run.jobs) runs[job.cell->id] = job.runs() && !standing_result(run, *job.cell, cache_key_of(run, job)).result;
  for (std::size_t k = 0; k < groups.size(); ++k)
    work[k] = std::any_of(groups[k].begin(), groups[k].end(), [&](const std::string& id) { return runs[id]; });
  return work;
}

}  // namespace

int run_image_by_image(const RunOptions& opts, const Matrix& m, const std::vector<std::vector<std::string>>& groups,
                       const std::string& command, std::ostream& out, std::ostream& err) {
  RunOptions run = opts;
  run.where.clear();
  std::unique_ptr<Engine> engine = make_engine(engine_config_for(run));
  const LookAheadSettings ahead = default_look_ahead_settings(1, absolute_path(opts.results));
  const std::vector<bool> work = groups_with_work(run, groups);
  const double budget_bytes = opts.disk_budget_gb * 1e9;
  DiskBudget budget(budget_bytes);
  const std::int64_t run_started =
      std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
  std::set<std::string> built_ahead;  // tags this run built ahead of their cells: its own, for the budget
  auto remove = [&](const std::vector<BuiltImage>& images, const char* why) {
    for (const auto& old : images)
      out << fmt::format("{}: --disk-budget {} GB: removing {} ({:.1f} GB), built by this run, its cells done{}{}\n",
                         command, opts.disk_budget_gb, old.tag, old.bytes / 1e9, why,
                         engine->remove_image(old.tag) ? "" : " — could not remove it (in use?)");
    // The stages of the multi-stage builds this run made stay behind their tagged image, untagged.
    if (!images.empty())
      if (const int stages = engine->remove_unused_images_since(run_started); stages > 0)
        out << fmt::format("{}: --disk-budget {} GB: removed {} untagged build stage image{} this run made\n", command,
                           opts.disk_budget_gb, stages, stages == 1 ? "" : "s");
  };
  // The images kept under the budget are the next image's room where the disk has no other (the
  // 0.18.0 tenth round: PyPI torch 2.5.1's image kept, 6.4 GB under a budget of 10, and torch 2.8's
  // cells not started for want of 0.4 GB).
  run.make_room = [&] {
    const auto kept = budget.all_kept();
    remove(kept, ", for the next image's room");
    return !kept.empty();
  };
  int status = kExitOk;
  for (std::size_t k = 0; k < groups.size(); ++k) {
    if (groups[k].empty()) continue;
    run.cells = groups[k];
    const Cell& first = *m.find(groups[k].front());
    const std::string planned = engine->planned_image(first);
    const bool there_before = !planned.empty() && !engine->image_id(planned).empty() && !built_ahead.count(planned);
    // The next image with cells to run is built beside this one's cells (downloads beside their
    // work), where the budget holds it with the images kept and this one, and the disk has room;
    // never beside this one's own build: two images of one CUDA (torch 2.11's and 2.12's) share
    // their lower layers, which two builds at once would each make, competing for the network
    // and the disk; this one is built first, then the next beside its cells.
    std::future<ImageOutcome> next_build;
    const auto next = std::find(work.begin() + static_cast<std::ptrdiff_t>(k) + 1, work.end(), true);
    const bool ahead_wanted = work[k] && next != work.end() && opts.prefetch > 0 && engine->name() != "host";
    if (ahead_wanted && !planned.empty() && engine->image_id(planned).empty())
      acquire_image(*engine, first, ahead);  // not there before: the budget counts it after its cells
    if (ahead_wanted && !engine->image_id(planned).empty()) {
      const Cell& n = *m.find(groups[static_cast<std::size_t>(next - work.begin())].front());
      const std::string tag = engine->planned_image(n);
      const AheadRoom room{budget.kept_bytes(), there_before ? 0.0 : ahead.storage_need(first), ahead.storage_need(n),
                           budget_bytes, ahead.free_bytes(engine->storage_root())};
      const std::string no_room = no_room_to_build_ahead(room);
      if (!tag.empty() && engine->image_id(tag).empty() && no_room.empty()) {
        out << fmt::format("{}: building {} ahead (for {}) beside {}'s cells\n", command, tag, n.id, planned) << std::flush;
        next_build = std::async(std::launch::async, [&engine, &n, &ahead] { return acquire_image(*engine, n, ahead); });
      } else if (!tag.empty() && engine->image_id(tag).empty()) {
        out << fmt::format("{}: not building {} ahead (for {}): {}; its cells' run builds it\n", command, tag, n.id, no_room)
            << std::flush;
      }
    }
    const int s = run_selected_cells(run, out, err);
    if (next_build.valid()) {  // a stop ends its build too (engine/process.h)
      const ImageOutcome built = next_build.get();
      if (built.ok && built.built) built_ahead.insert(built.tag);
      if (!built.ok && !stop_requested().load())
        out << fmt::format("{}: the build ahead failed ({}); its cells' run builds it again\n", command,
                           built.error.substr(0, built.error.find('\n')));
    }
    if (s == kExitInterrupted || s == kExitUsage) return s;
    status = std::max(status, s);
    if (!there_before && !planned.empty() && !engine->image_id(planned).empty())
      budget.built({planned, engine->image_size(planned).value_or(0)});
    remove(budget.over_budget(), "");
  }
  return status;
}

}  // namespace opmatrix
