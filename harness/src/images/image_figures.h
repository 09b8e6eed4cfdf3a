// What one cold image of a built-in kind stores, downloads and takes to build: the measured
// figures `opmatrix run` estimates with before it starts (images/run_cost.h), kept beside each
// kind's recipe (images/*.cpp) so that a new kind brings its own.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace opmatrix {

// Measured on the project's build machine (2 cores, podman 4.3 overlay, 2026-11-23;
// docs/containers.md "Measured", bench/RESULTS.md): what one cold image of a built-in recipe
// stores (as `podman images` counts it: shared layers counted in every image, so a sum is an
// upper bound), downloads and takes to build.
struct ImageFigures {
  double bytes = 0;
  double download_bytes = 0;
  double build_seconds = 0;
  bool measured = true;  // false: a recipe of the matrix's own, given the largest figures
  double largest_layer_bytes = 0;  // what a commit briefly needs room for (0: the whole image)
};

// One measured case of a kind: alone or on CUDA layers another image already has, for one
// torch CUDA or any ("").
struct FiguresRow {
  bool cuda_layers_present;
  const char* cuda;
  ImageFigures figures;
};

// The first row that fits (rows for one CUDA come before the row for any); nullopt: none does.
std::optional<ImageFigures> figures_in(const std::vector<FiguresRow>& rows, bool cuda_layers_present,
                                       const std::string& cuda);

}  // namespace opmatrix
