// Gathers what images/run_cost.h judges, for the cells a run is about to start: which of their
// images the engine's storage lacks (and how big each is: the cell's last image when the
// storage still has it, else the measured figures), the build folders still to be made, the
// free space of the engine's storage and of the work dir; and renders it for a person.
#pragma once

#include <string>
#include <vector>

#include "matrix/model.h"
#include "engine/engine.h"
#include "images/run_cost.h"

namespace opmatrix {

struct RunCost {
  std::vector<PlannedImage> new_images;
  std::vector<std::string> present_images;  // the cells' images the storage holds already, by tag
  bool uses_images = true;  // false: the host engine, which builds none
  int new_build_trees = 0;
  double build_tree_bytes = 0;
  int atlas_pairs = 0;  // each one's folder goes once it is done: room for `parallel_cells` of them
  // A project's own file (an sdist, a wheel) and requirements, as its last run's steps counted
  // them (StepResult::download_bytes): for `projects_counted` cells; `projects_not_counted` had
  // no such figure (no run yet, or a run before the steps counted).
  double project_download_bytes = 0;
  int projects_counted = 0;
  int projects_not_counted = 0;
  double image_budget_bytes = 0;  // --disk-budget (0: every new image at once)
  double image_seconds = 0;  // building the new images, one after the other
  double cell_seconds = 0;   // running the cells, one after the other
  double wall_seconds = 0;   // the two together, the look-ahead's image builds beside the cells
  // The order the cells run in (indexes into the cells surveyed): the one that keeps them least
  // waiting for images (images/look_ahead_order.h) where one worker runs them beside the
  // look-ahead; else as given. `given_order_seconds`: the wall time in the given order (0 where
  // no order was chosen).
  std::vector<std::size_t> cell_order;
  double given_order_seconds = 0;
  int parallel_cells = 1;
  std::vector<SpaceNeed> needs;  // engine storage, work dir
  // What the host lacks to build a planned image, each with its fix (podman's base images
  // without mmdebstrap): the cells that need it would fail at their image step.
  std::vector<std::string> blockers;
};

// The measured figures of the recipe a cell's image is built from (by its Containerfile's
// name: debian.Containerfile -> debian; a matrix's own gets the largest).
ImageFigures image_figures_of(const Cell& cell);

// `cells`: those the run will start (not the skipped ones). `images_only`: no cell runs.
// `image_budget_bytes`: --disk-budget (0: none), the most of the new images kept at once.
RunCost survey_run_cost(Engine& engine, const std::vector<const Cell*>& cells, const std::string& results_dir,
                        int parallel_cells, bool images_only, double image_budget_bytes = 0);

// Lines for stderr, each starting with two spaces, ending in '\n'.
std::string render_run_cost(const RunCost& cost);

}  // namespace opmatrix
