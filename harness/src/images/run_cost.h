// What a run will download and store, and how long it takes, said before it starts
// (`opmatrix run` prints it; docs/cli.md#what-a-run-costs). Pure arithmetic over figures the
// caller gathers (images/run_cost_survey.h): sizes of images and build trees, free space of the
// filesystems they land on. The measured figures used where nothing better is known live here.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "images/image_figures.h"
#include "matrix/model.h"

namespace opmatrix {

// By Containerfile stem, the name of a built-in kind (images/image_kinds.h), whose module
// holds its figures; another recipe (a matrix's own Containerfile) gets the largest pypi
// figures: never too little.
// `cuda_layers_present`: an image whose CUDA layers another image already has (docs/containers.md
// "Layers of a pypi image", "Shared layers"): what one more torch minor, or one more Debian image
// on its suite's toolkit, adds. `cuda`: torch's CUDA, where a figure for it was measured.
ImageFigures measured_image_figures(const std::string& recipe, bool cuda_layers_present = false,
                                    const std::string& cuda = "");
// localhost/opmatrix-base:SUITE, made with mmdebstrap before a cell image on podman.
ImageFigures measured_base_image_figures();
// What a cell does, for what it costs: builds opmatrix's own kernels + cases, builds or installs
// another op library (a project), or installs one wheel of the atlas (a pair).
enum class CellWork { own_kernels, library, atlas_pair };
CellWork work_of(const Cell& cell);
// A cell's build folder (WORK/cells/ID/ENGINE-build) after a run, and a cell's run without its
// image step.
double measured_build_tree_bytes(CellWork work);
double measured_pair_folder_peak_bytes();
double measured_cell_seconds(CellWork work);
// The same for one cell, where its declaration says more: our kernels' compile grows with the
// cell's CUDA archs, and a cell declared to fail its build stops there.
double measured_cell_seconds(const Cell& cell);

// A cell of the run, in the order the run takes them: its seconds past its image, and the new
// images (indexes into the image build times) it waits for.
struct TimedCell {
  double seconds = 0;
  std::vector<std::size_t> images;
};
// The run's wall time with its image look-ahead: one builder makes the new images in the order the
// cells (in the order the run takes them) first ask for them, from the start, beside the cells; a
// cell starts once the one before it ended and its images are built. (The image and cell times
// added up err long by about the image builds a compiling cell hides: the 0.7.0 main job from a
// fresh clone, 4 images of 1609 s built beside cells of 4455 s, took 4456 s.)
double look_ahead_wall_seconds(const std::vector<double>& image_build_seconds, const std::vector<TimedCell>& cells);

// One image a run would build (or pull) because the engine's storage does not have it.
struct PlannedImage {
  std::string name;                // its tag; the recipe and build args while the tag is unknown
  std::vector<std::string> cells;  // the selected cells that run in it
  std::optional<double> bytes;     // nullopt: unknown (a prebuilt ref to pull)
  std::string size_from;           // "measured" (the table above) or where the size was read
  double download_bytes = 0;
  double build_seconds = 0;
  double largest_layer_bytes = 0;  // 0: unknown, the whole image
};

// An image a run would build, sized by measured figures; `size_from` says which.
PlannedImage image_of_figures(const std::string& name, const ImageFigures& figures, const std::string& size_from);

// A filesystem and what the run would add to it.
struct SpaceNeed {
  std::string what;                  // "podman storage", "the work dir"
  std::string path;
  std::uint64_t device = 0;          // st_dev: needs on one device add up
  std::optional<double> free_bytes;  // nullopt: could not be read
  double bytes = 0;
};

struct SpaceVerdict {
  bool fits = true;
  std::vector<std::string> problems;  // one per filesystem that is short, with the numbers
};

// Needs on the same device are added up and compared with that device's free space; a need
// whose free space is unknown never stops a run.
SpaceVerdict judge_space(const std::vector<SpaceNeed>& needs);

// What the engine's storage needs for these images: their sizes, plus room for committing the
// largest layer (a commit briefly holds the layer diff and a blob in /var/tmp besides the
// layer: about three times the new layer, measured; docs/containers.md).
double image_storage_need(const std::vector<PlannedImage>& images);

// "8.4 GB", "630 MB" (decimal units, as podman prints them).
std::string human_bytes(double bytes);
// "about 1 h 5 min", "about 40 s".
std::string human_duration(double seconds);

}  // namespace opmatrix
