#include "run/run_cost.h"

#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>

namespace opmatrix {

// Measured on the build machine (docs/containers.md "Measured", bench/images/README.md): the
// largest image and the slowest cold build of each recipe where nothing more specific is known,
// so that the estimate errs on the safe side; rows for one torch CUDA come first.
//   debian:       bookworm 1.77 GB, trixie 1.76 GB, sid 1.87 GB; 89-185 s; apt 338-368 MB
//   debian-cuda:  trixie 9.22 GB; 372-500 s (429 s cold with the cuDNN stage, 2026-11-26);
//                 apt 783 MB + 1879 MB, cuDNN wheel 670 MB
//   debian-cuda-toolkit: bookworm 7.31 GB; 354 s; apt 1547 MiB + 238 MB
//   debian-cuda-toolkit with its suite's toolkit layer present (trixie after debian-cuda,
//                 2026-11-26): adds 1.23 GB (6.76 GB alone); 97 s; apt 244 MB
//   pypi:         5.99-8.37 GB alone (layered: 2.8.0 7.89, 2.9.1 8.15, 2.10.0 8.37 with CUDA 12.8;
//                 2.15.0 with CUDA 13.2 6.79, 257 s; 2.5.1 with CUDA 12.4 6.43, 220 s;
//                 2026-11-26); 154-401 s; 25-32 wheels, 2570-3766 MiB, + nvcc wheels 109 MiB
//   pypi with its CUDA's layers present (another minor of the same CUDA, nvcc and suite):
//                 torch 2.9.1 added 3.37 GB, 2.10.0 3.16 GB (bench/images/layer_cost.py);
//                 154-173 s; 1204-1454 MiB
// Largest layers: debian's packages 0.6 GB, the CUDA toolkits 5.7 GB (trixie) and 5.5 GB
// (bookworm), a pypi image's torch layer 2.55 GB (2.8.0: torch, triton, Python packages).
// With its CUDA layers present, a debian-cuda or debian-cuda-toolkit image adds what lies above
// the suite's toolkit layer (shared: docs/containers.md "Shared layers"): the CPU torch packages,
// or the CUDA torch with its cuDNN and torchvision (estimated: 9.22 GB less the 5.7 GB toolkit
// layer; not yet built after a debian-cuda-toolkit image of its suite).
struct RecipeFigures {
  const char* recipe;
  bool cuda_layers_present;
  const char* cuda;  // torch's CUDA this row is for; "" = any
  ImageFigures figures;
};
constexpr RecipeFigures kRecipeFigures[] = {
    {"debian", false, "", {1.87e9, 0.37e9, 185, true, 0.6e9}},
    {"debian-cuda", false, "", {9.22e9, 3.33e9, 500, true, 5.7e9}},
    {"debian-cuda", true, "", {3.6e9, 1.8e9, 300, true, 1.9e9}},
    {"debian-cuda-toolkit", false, "", {7.31e9, 1.86e9, 354, true, 5.7e9}},
    {"debian-cuda-toolkit", true, "", {1.23e9, 0.26e9, 97, true, 0.6e9}},
    {"pypi", false, "12.4", {6.43e9, 3.0e9, 220, true, 2.7e9}},
    {"pypi", false, "13.2", {6.79e9, 3.2e9, 257, true, 2.7e9}},
    {"pypi", false, "", {8.37e9, 3.95e9, 401, true, 2.7e9}},
    {"pypi", true, "", {3.4e9, 1.53e9, 175, true, 2.7e9}},
};

ImageFigures measured_image_figures(const std::string& recipe, bool cuda_layers_present, const std::string& cuda) {
  for (const auto& row : kRecipeFigures)
    if (recipe == row.recipe && row.cuda_layers_present == cuda_layers_present && (!*row.cuda || cuda == row.cuda))
      return row.figures;
  return {8.37e9, 3.95e9, 401, false};  // any other Containerfile: the largest, one layer
}

// mmdebstrap bases: bookworm 163 MB / 33 s, trixie 117 MB / 29 s, sid 118 MB / 31 s.
ImageFigures measured_base_image_figures() { return {163e6, 163e6, 33}; }

// Build folders after a run (WORK/cells/*): our kernels + cases 570-829 MB (CPU 570-768,
// CUDA 612-829); other op libraries 0.1-220 MB (torch-scatter with CUDA the largest).
double measured_build_tree_bytes(bool own_kernels) { return own_kernels ? 829e6 : 220e6; }

// A cell's run past its image (results/*.json `seconds` minus the image step), 2 cores:
// our kernels 268-1000 s (median about 650 s; the behaviour checks take most of it); other op
// libraries 12-1767 s (median about 130 s; torch-scatter's CUDA 13.2 compile 1737 s).
double measured_cell_seconds(bool own_kernels) { return own_kernels ? 650 : 240; }

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
