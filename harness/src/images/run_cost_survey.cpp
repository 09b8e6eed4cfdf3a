#include "images/run_cost_survey.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <numeric>
#include <optional>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "engine/container_engines.h"
#include "images/image_kinds.h"
#include "images/look_ahead_order.h"
#include "util/atomic_write.h"
#include "util/disk_space.h"

namespace fs = std::filesystem;

namespace opmatrix {

namespace {

std::string recipe_of(const Cell& cell) {
  std::string stem = fs::path(cell.image.containerfile).filename().string();
  return stem.substr(0, stem.find('.'));
}

// How a person tells the image apart before it has a tag: its recipe and build args.
std::string describe_recipe(const Cell& cell) {
  std::string out = cell.image.builtin.empty() ? cell.image.containerfile : cell.image.builtin;
  for (const auto& [k, v] : cell.image.args)
    if (!v.empty()) out += " " + k + "=" + v;
  return out;
}

nlohmann::json last_result(const std::string& results_dir, const Cell& cell) {
  return nlohmann::json::parse(read_text_file(results_dir + "/" + cell.id + ".json"), nullptr, false);
}

// Which images share their CUDA layers: the kind of the cell's image says ("" for an image of
// no built-in kind).
std::string cuda_layers_key(const Cell& cell) {
  const ImageKind* kind = find_image_kind(cell.image.builtin);
  return kind ? kind->cuda_layers_key(cell) : "";
}

// The base images a podman cell image is built on that are not made yet (mmdebstrap).
std::vector<std::string> missing_bases(Engine& engine, const Cell& cell) {
  std::vector<std::string> suites;
  std::string suite = "bookworm";
  for (const auto& [k, v] : cell.image.args) {
    if (k == "SUITE") suite = v;
    if (v.rfind("debian:", 0) == 0) suites.push_back(v.substr(7));
  }
  suites.push_back(suite);
  std::vector<std::string> out;
  for (const auto& s : suites) {
    const std::string base = kBaseImagePrefix + s;
    if (std::find(out.begin(), out.end(), base) == out.end() && engine.image_id(base).empty()) out.push_back(base);
  }
  return out;
}

// `need` with the device and free space of the filesystem its folder is on, where known.
SpaceNeed with_free_space(SpaceNeed need) {
  if (auto space = disk_space(need.path)) {
    need.device = space->device;
    need.free_bytes = space->free_bytes;
  }
  return need;
}

// The seconds a cell's run takes past its image step: its last run's where it has one (an image
// the look-ahead built took the cell only its wait, `waited_seconds`, not the build), else the
// measured figure. A last run the infrastructure ended (status "error": no image, a full disk, the
// network) stopped before its work and says nothing of it: 84 atlas pairs whose last runs had
// ended so in 0.002 s were said to take 3 min together.
double cell_seconds(const nlohmann::json& last, const Cell& cell) {
  if (!last.is_object() || !last.contains("seconds") || !last["seconds"].is_number() ||
      last.value("status", "") == "error")
    return measured_cell_seconds(cell);
  double seconds = last["seconds"].get<double>();
  if (last.contains("steps") && last["steps"].is_array())
    for (const auto& s : last["steps"]) {
      if (s.value("name", "") != "image") continue;
      const char* spent = s.contains("waited_seconds") ? "waited_seconds" : "seconds";
      if (s.contains(spent) && s[spent].is_number()) seconds -= s[spent].get<double>();
    }
  return std::max(seconds, 0.0);
}

// What a project's cell downloads besides its image (its file, its requirements), as its last
// run's steps counted it; nullopt where no step of that run counted.
std::optional<double> project_download_bytes(const nlohmann::json& last) {
  if (!last.is_object() || !last.contains("steps") || !last["steps"].is_array()) return std::nullopt;
  std::optional<double> sum;
  for (const auto& s : last["steps"])
    if (s.contains("download_bytes") && s["download_bytes"].is_number())
      sum = sum.value_or(0) + s["download_bytes"].get<double>();
  return sum;
}

// The images a run would build, in the order first asked for, each with the cells it serves.
class ImagePlan {
 public:
  explicit ImagePlan(std::vector<PlannedImage>& images) : images_(images) {}

  void add(const std::string& name, const Cell& cell, PlannedImage fresh) {
    auto it = by_name_.find(name);
    if (it == by_name_.end()) {
      fresh.name = name;
      it = by_name_.emplace(name, images_.size()).first;
      images_.push_back(std::move(fresh));
    }
    images_[it->second].cells.push_back(cell.id);
  }

 private:
  std::vector<PlannedImage>& images_;
  std::map<std::string, std::size_t> by_name_;  // image name -> index in images_
};

// A cell image the storage lacks, sized by its kind's measured figures, or by the image the cell
// ran in last time when the storage still has it: the best guess of the next one's size (its
// tag changed with a script or the base, not with torch); not where layers are shared, since
// `podman images` counts those in every image.
PlannedImage sized_image(Engine& engine, const Cell& cell, const nlohmann::json& last, const std::string& tag,
                         bool shares_layers) {
  const std::string recipe = recipe_of(cell);  // by file name: debian.Containerfile …
  const ImageFigures figures = measured_image_figures(recipe, shares_layers, cell.cuda);
  PlannedImage image = image_of_figures(
      "", figures,
      !figures.measured ? "a Containerfile of the matrix's own: the largest measured image"
      : shares_layers   ? "measured for one more " + recipe + " image of a CUDA already there"
                        : "measured for " + recipe + " images");
  const std::string old = last.is_object() ? last.value("image", "") : "";
  if (!shares_layers && !old.empty() && old != tag)
    if (auto size = engine.image_size(old)) {
      image.bytes = *size;
      image.size_from = "as its last image " + old;
    }
  return image;
}

// Plans what the storage lacks for one cell: a prebuilt ref to pull, or the bases (podman,
// mmdebstrap) and the image to build.
void plan_image(Engine& engine, const Cell& cell, const nlohmann::json& last, const std::string& tag,
                bool shares_layers, ImagePlan& plan) {
  if (!cell.image.ref.empty()) {
    PlannedImage pulled;
    pulled.size_from = "unknown until pulled";
    plan.add(cell.image.ref, cell, pulled);
    return;
  }
  const PlannedImage image = sized_image(engine, cell, last, tag, shares_layers);
  if (engine.name() == "podman" && engine.config().local_base_images)
    for (const auto& base : missing_bases(engine, cell))
      plan.add(base, cell, image_of_figures(base, measured_base_image_figures(), "measured for mmdebstrap bases"));
  plan.add(tag.empty() ? describe_recipe(cell) : tag, cell, image);
}

// What the new images and build folders need of the engine's storage and of the work dir.
// The atlas pairs' folders at their largest: as many as run at once.
double pair_folders_bytes(const RunCost& cost) {
  return std::min(cost.atlas_pairs, cost.parallel_cells) * measured_pair_folder_peak_bytes();
}

void add_space_needs(Engine& engine, RunCost& cost) {
  if (engine.name() != "host" && !cost.new_images.empty()) {
    double need = image_storage_need(cost.new_images);
    if (cost.image_budget_bytes > 0) {
      // Runtime by runtime, the images built are removed beyond the budget: at most the budget,
      // the largest image being built beside it, and the room to commit (image_storage_need's).
      double sum = 0, largest = 0;
      for (const auto& i : cost.new_images) {
        sum += i.bytes.value_or(0);
        largest = std::max(largest, i.bytes.value_or(0));
      }
      need = std::min(need, cost.image_budget_bytes + largest + (need - sum));
    }
    cost.needs.push_back(with_free_space({engine.name() + " storage", engine.storage_root(), 0, std::nullopt, need}));
  }
  const double work_dir_bytes = cost.build_tree_bytes + pair_folders_bytes(cost);
  if (work_dir_bytes > 0)
    cost.needs.push_back(with_free_space({"the work dir", engine.config().work_dir, 1, std::nullopt, work_dir_bytes}));
}

// The present images by name where they are few (a user asking "which image would this cell
// use?" reads it here); past three, the count alone says enough.
std::string present_names(const std::vector<std::string>& tags) {
  if (tags.empty() || tags.size() > 3) return "";
  return fmt::format(" ({})", fmt::join(tags, ", "));
}

// The images as the look-ahead will build them: in the order the cells, as they run, first ask
// for them (what the cost lists, top to bottom).
void list_images_in_build_order(const std::vector<std::size_t>& order, const std::vector<TimedCell>& timeline,
                                std::vector<PlannedImage>& images) {
  std::vector<std::size_t> first_need(images.size(), order.size());
  for (std::size_t k = 0; k < order.size(); ++k)
    for (const auto i : timeline[order[k]].images)
      if (i < first_need.size()) first_need[i] = std::min(first_need[i], k);
  std::vector<std::size_t> by_need(images.size());
  std::iota(by_need.begin(), by_need.end(), std::size_t{0});
  std::stable_sort(by_need.begin(), by_need.end(), [&](std::size_t x, std::size_t y) { return first_need[x] < first_need[y]; });
  std::vector<PlannedImage> sorted;
  for (const auto i : by_need) sorted.push_back(std::move(images[i]));
  images = std::move(sorted);
}

}  // namespace

ImageFigures image_figures_of(const Cell& cell) { return measured_image_figures(recipe_of(cell), false, cell.cuda); }

RunCost survey_run_cost(Engine& engine, const std::vector<const Cell*>& cells, const std::string& results_dir,
                        int parallel_cells, bool images_only, double image_budget_bytes) {
  RunCost cost;
  cost.image_budget_bytes = image_budget_bytes;
  cost.parallel_cells = std::max(1, parallel_cells);
  cost.uses_images = engine.name() != "host";
  ImagePlan plan(cost.new_images);
  std::map<std::string, bool> present;
  std::set<std::string> cuda_layers;  // cuda_layers_key of the images present or planned so far
  std::vector<TimedCell> timeline;
  for (const Cell* cell : cells) {
    const nlohmann::json last = last_result(results_dir, *cell);
    const CellWork work = work_of(*cell);
    timeline.push_back({images_only ? 0.0 : cell_seconds(last, *cell), {}});
    if (!images_only) {
      cost.cell_seconds += timeline.back().seconds;
      if (work == CellWork::atlas_pair) {
        ++cost.atlas_pairs;
      } else if (!fs::exists(engine.host_build_dir(*cell))) {
        ++cost.new_build_trees;
        cost.build_tree_bytes += measured_build_tree_bytes(work);
      }
      if (work == CellWork::library) {
        const std::optional<double> bytes = project_download_bytes(last);
        cost.project_download_bytes += bytes.value_or(0);
        ++(bytes ? cost.projects_counted : cost.projects_not_counted);
      }
    }
    if (engine.name() == "host") continue;
    const std::string tag = engine.planned_image(*cell);
    const std::string layers_key = cuda_layers_key(*cell);
    const bool shares_layers = !layers_key.empty() && cuda_layers.count(layers_key);
    if (!layers_key.empty()) cuda_layers.insert(layers_key);
    if (!tag.empty()) {
      if (!present.count(tag)) present[tag] = !engine.image_id(tag).empty();
      if (present[tag]) continue;
    }
    plan_image(engine, *cell, last, tag, shares_layers, plan);
  }
  for (const auto& [tag, is_present] : present)
    if (is_present) cost.present_images.push_back(tag);
  std::vector<double> builds;
  for (std::size_t k = 0; k < cost.new_images.size(); ++k) {
    const PlannedImage& image = cost.new_images[k];
    cost.image_seconds += image.build_seconds;
    builds.push_back(image.build_seconds);
    for (std::size_t c = 0; c < cells.size(); ++c)
      if (std::find(image.cells.begin(), image.cells.end(), cells[c]->id) != image.cells.end())
        timeline[c].images.push_back(k);
  }
  cost.cell_order.resize(cells.size());
  std::iota(cost.cell_order.begin(), cost.cell_order.end(), std::size_t{0});
  if (cost.parallel_cells > 1) {
    cost.wall_seconds = (cost.image_seconds + cost.cell_seconds) / cost.parallel_cells;
  } else if (images_only || image_budget_bytes > 0 || cost.atlas_pairs > 0 || !cost.uses_images) {
    // Nothing compiles beside the builds, or the cells go image by image: the given order.
    cost.wall_seconds = look_ahead_wall_seconds(builds, timeline);
  } else {
    const LookAheadOrder order = order_for_look_ahead(builds, timeline);
    cost.cell_order = order.order;
    cost.wall_seconds = order.wall_seconds;
    cost.given_order_seconds = order.given_order_seconds;
    list_images_in_build_order(order.order, timeline, cost.new_images);
  }
  // Asked once, and only where the plan makes a base: a run whose bases are there needs no mmdebstrap.
  const auto base = std::find_if(cost.new_images.begin(), cost.new_images.end(),
                                 [](const PlannedImage& i) { return i.name.rfind(kBaseImagePrefix, 0) == 0; });
  if (base != cost.new_images.end() && program_version(kBaseImageTool).empty())
    cost.blockers.push_back(fmt::format("the base image {} cannot be made: {}", base->name, base_image_tool_fix()));
  add_space_needs(engine, cost);
  return cost;
}

std::string render_run_cost(const RunCost& cost) {
  std::string out;
  if (!cost.uses_images) {
    out += "  images: none (this machine is the environment)\n";
  } else if (cost.new_images.empty()) {
    out += fmt::format("  images: all {} present, nothing to download{}\n", cost.present_images.size(),
                       present_names(cost.present_images));
  } else {
    double download = 0;
    for (const auto& i : cost.new_images) download += i.download_bytes;
    out += fmt::format("  images to build: {} ({} present); downloads about {}\n", cost.new_images.size(),
                       cost.present_images.size(), human_bytes(download));
    for (const auto& i : cost.new_images) {
      const std::string cells = i.cells.size() <= 2 ? fmt::format("{}", fmt::join(i.cells, ", "))
                                                    : fmt::format("{}, … ({} cells)", i.cells.front(), i.cells.size());
      out += fmt::format("    {}: {} ({}), {} to build; for {}\n", i.name,
                         i.bytes ? human_bytes(*i.bytes) : "size unknown", i.size_from,
                         human_duration(i.build_seconds), cells);
    }
  }
  if (cost.projects_counted == 0 && cost.projects_not_counted > 0)
    out += fmt::format("  projects' own files and requirements: not counted (none of their {} cells has a run that "
                       "counted them yet)\n", cost.projects_not_counted);
  else if (cost.projects_counted > 0)
    out += fmt::format("  projects' own files and requirements: about {} (for {} of their {} cells, as their last runs "
                       "downloaded them with empty caches){}\n",
                       human_bytes(cost.project_download_bytes), cost.projects_counted,
                       cost.projects_counted + cost.projects_not_counted,
                       cost.projects_not_counted > 0 ? fmt::format("; {} not counted: no run that counted yet",
                                                                   cost.projects_not_counted)
                                                     : "");
  if (cost.new_build_trees > 0)
    out += fmt::format("  build folders to make: {}, about {} (measured: {} per cell of our kernels, {} per other library)\n",
                       cost.new_build_trees, human_bytes(cost.build_tree_bytes),
                       human_bytes(measured_build_tree_bytes(CellWork::own_kernels)),
                       human_bytes(measured_build_tree_bytes(CellWork::library)));
  if (cost.image_budget_bytes > 0)
    out += fmt::format("  --disk-budget {}: the cells run image by image, and the images this run builds are removed beyond it\n",
                       human_bytes(cost.image_budget_bytes));
  if (cost.atlas_pairs > 0)
    out += fmt::format("  atlas pairs: {}, each one's folder removed once its result is written (up to {} while it runs, "
                       "{} at once)\n", cost.atlas_pairs, human_bytes(measured_pair_folder_peak_bytes()),
                       std::min(cost.atlas_pairs, cost.parallel_cells));
  for (const auto& n : cost.needs)
    out += fmt::format("  {} {}: needs {}{}, {}\n", n.what, n.path.empty() ? "(folder unknown)" : n.path,
                       human_bytes(n.bytes), n.what == "the work dir" ? "" : " (the images, and room to commit the largest)",
                       n.free_bytes ? human_bytes(*n.free_bytes) + " free" : "free space unknown");
  // The host engine builds no image: its time names none.
  const std::string images = cost.uses_images ? "images " + human_duration(cost.image_seconds) + ", " : "";
  const std::string how = cost.parallel_cells > 1 ? fmt::format(", {} at once", cost.parallel_cells)
                          : cost.uses_images      ? ", the images built beside the cells"
                                                  : "";
  out += fmt::format("  time: {} ({}cells {}{})\n", human_duration(cost.wall_seconds), images,
                     human_duration(cost.cell_seconds), how);
  if (cost.given_order_seconds > cost.wall_seconds)
    out += fmt::format("  order: the cells whose images are here or quickest to build first, the longest builds beside "
                       "them (images/look_ahead_order.h): {}; in the matrix's order {}\n",
                       human_duration(cost.wall_seconds), human_duration(cost.given_order_seconds));
  for (const auto& b : cost.blockers) out += fmt::format("  the cells that need it fail at their image step: {}\n", b);
  return out;
}

}  // namespace opmatrix
