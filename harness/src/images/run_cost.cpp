#include "images/run_cost.h"

#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "images/image_kinds.h"

namespace opmatrix {

// Each built-in kind's measured figures, with what they were measured on, are in its module
// (images/*.cpp): the largest image and the slowest cold build where nothing more specific is
// known, so that the estimate errs on the safe side.
ImageFigures measured_image_figures(const std::string& recipe, bool cuda_layers_present, const std::string& cuda) {
  if (const ImageKind* kind = find_image_kind(recipe))
    if (const auto figures = kind->figures(cuda_layers_present, cuda)) return *figures;
  return {8.37e9, 3.95e9, 401, false};  // any other Containerfile: pypi's largest, one layer
}

// mmdebstrap bases: bookworm 163 MB / 33 s, trixie 117 MB / 29 s, sid 118 MB / 31 s.
ImageFigures measured_base_image_figures() { return {163e6, 163e6, 33}; }

CellWork work_of(const Cell& cell) {
  return cell.atlas_pair ? CellWork::atlas_pair : cell.project ? CellWork::library : CellWork::own_kernels;
}

// Build folders after a run (WORK/cells/*): our kernels + cases 570-829 MB (CPU 570-768,
// CUDA 612-829); other op libraries 0.1-220 MB (torch-scatter with CUDA the largest); an atlas
// pair none: its folder is removed once its result is written (run/cell_runner.cpp).
double measured_build_tree_bytes(CellWork work) {
  switch (work) {
    case CellWork::own_kernels: return 829e6;
    case CellWork::library: return 220e6;
    case CellWork::atlas_pair: return 0;
  }
  return 829e6;
}

// An atlas pair's folder while it runs: the wheel and its installed copy with its requirements,
// 16-38 MB for 3-6 MB wheels, 1.3 GB the largest (cuequivariance-ops-torch-cu12 with its CUDA
// libraries).
double measured_pair_folder_peak_bytes() { return 1.3e9; }

// A cell's run past its image (results/*.json `seconds` minus the image step), 2 cores. The
// main job of 0.15.0 from a fresh clone, cold, nothing beside it (2026-11-29; our kernels and
// cases one unity TU per family, linked once): our kernels in a CPU torch 106 s (1.13) and 245 s
// (2.14, C++20 headers); with CUDA 175 s (1 arch), 165 s (3 archs, Debian's CUDA 12.4), 322 s
// (8 archs), fitted as 130 s + 23 s an arch; a cell declared to fail its build (a CUDA toolkit
// beside a CPU-only torch) 11 s; other op libraries 31-240 s (torch-scatter's sdist the
// slowest), and 12-1767 s in earlier runs (median about 130 s; torch-scatter's CUDA 13.2
// compile 1737 s). Before the unity build (0.8.0): 248/453 s in a CPU torch, 268-748 s with
// CUDA. An atlas pair about 10 s on average (trixie's 17 newest releases: 174 s, median 7.7 s;
// a no-wheel pair 1 s, a pair whose pip plan resolves a replacement torch 30-50 s the first time).
double measured_cell_seconds(CellWork work) {
  switch (work) {
    case CellWork::own_kernels: return 175;
    case CellWork::library: return 130;
    case CellWork::atlas_pair: return 10;
  }
  return 175;
}

namespace {
constexpr double kOwnKernelsCudaSeconds = 130;     // our kernels with CUDA, before the archs
constexpr double kOwnKernelsPerArchSeconds = 23;   // one more arch: a device pass over every .cu file
constexpr double kDeclaredBuildFailureSeconds = 15;  // probe, versions, the failed configure
}  // namespace

double measured_cell_seconds(const Cell& cell) {
  const CellWork work = work_of(cell);
  if (work != CellWork::own_kernels) return measured_cell_seconds(work);
  const bool build_fails = std::any_of(cell.expect.begin(), cell.expect.end(),
                                       [](const Expectation& e) { return e.check == "build"; });
  if (build_fails) return kDeclaredBuildFailureSeconds;
  if (!cell.has_cuda()) return measured_cell_seconds(work);
  return kOwnKernelsCudaSeconds + kOwnKernelsPerArchSeconds * static_cast<double>(cell.cuda_archs.size());
}

double look_ahead_wall_seconds(const std::vector<double>& image_build_seconds, const std::vector<TimedCell>& cells) {
  // The builder's order: as the cells first ask for the images, then those no cell waits on.
  std::vector<std::size_t> build_order;
  std::vector<bool> queued(image_build_seconds.size(), false);
  auto queue = [&](std::size_t i) {
    if (i < queued.size() && !queued[i]) {
      queued[i] = true;
      build_order.push_back(i);
    }
  };
  for (const auto& cell : cells)
    for (const auto i : cell.images) queue(i);
  for (std::size_t i = 0; i < image_build_seconds.size(); ++i) queue(i);
  std::vector<double> ready(image_build_seconds.size());
  double builder = 0;
  for (const auto i : build_order) ready[i] = builder += image_build_seconds[i];
  double t = 0;
  for (const auto& cell : cells) {
    for (const auto i : cell.images)
      if (i < ready.size()) t = std::max(t, ready[i]);
    t += cell.seconds;
  }
  return std::max(t, builder);  // images built for cells that never wait on them still take their time
}

SpaceVerdict judge_space(const std::vector<SpaceNeed>& needs) {
  SpaceVerdict verdict;
  std::map<std::uint64_t, std::vector<const SpaceNeed*>> by_device;
  std::vector<std::uint64_t> order;  // devices in the order their first need came
  for (const auto& n : needs) {
    if (!by_device.count(n.device)) order.push_back(n.device);
    by_device[n.device].push_back(&n);
  }
  for (const auto device : order) {
    const auto& group = by_device[device];
    double total = 0;
    std::optional<double> free;
    std::vector<std::string> names;
    for (const SpaceNeed* n : group) {
      total += n->bytes;
      if (n->free_bytes) free = n->free_bytes;
      names.push_back(fmt::format("{} ({}, {})", n->what, n->path, human_bytes(n->bytes)));
    }
    if (!free || total <= *free) continue;
    verdict.fits = false;
    verdict.problems.push_back(
        group.size() == 1
            ? fmt::format("{} needs {}, its filesystem has {} free", names.front(), human_bytes(total), human_bytes(*free))
            : fmt::format("{} share one filesystem: together {}, it has {} free", fmt::join(names, " and "),
                          human_bytes(total), human_bytes(*free)));
  }
  return verdict;
}

PlannedImage image_of_figures(const std::string& name, const ImageFigures& figures, const std::string& size_from) {
  PlannedImage image;
  image.name = name;
  image.bytes = figures.bytes;
  image.size_from = size_from;
  image.download_bytes = figures.download_bytes;
  image.build_seconds = figures.build_seconds;
  image.largest_layer_bytes = figures.largest_layer_bytes;
  return image;
}

double image_storage_need(const std::vector<PlannedImage>& images) {
  double sum = 0, largest = 0;
  for (const auto& i : images) {
    sum += i.bytes.value_or(0);
    largest = std::max(largest, i.largest_layer_bytes > 0 ? i.largest_layer_bytes : i.bytes.value_or(0));
  }
  return sum + 2 * largest;
}

std::string human_bytes(double bytes) {
  if (bytes >= 1e9) return fmt::format("{:.1f} GB", bytes / 1e9);
  if (bytes >= 1e6) return fmt::format("{:.0f} MB", bytes / 1e6);
  return fmt::format("{:.0f} kB", bytes / 1e3);
}

std::string human_duration(double seconds) {
  const long s = std::lround(seconds);
  if (s < 60) return fmt::format("about {} s", s);
  const long minutes = (s + 30) / 60;
  if (minutes < 60) return fmt::format("about {} min", minutes);
  return fmt::format("about {} h {} min", minutes / 60, minutes % 60);
}

}  // namespace opmatrix
