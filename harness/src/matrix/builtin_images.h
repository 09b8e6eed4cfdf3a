// The images opmatrix knows how to build, by name: a cell says which torch/torchvision/CUDA
// it wants and where they come from, and the recipe (a Containerfile of the data root plus
// build args derived from the cell) follows. A user never copies our build args by hand.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "matrix/model.h"

namespace opmatrix {

struct BuiltinImageRecipe {
  std::string name;                  // what `image: {builtin: NAME}` says
  std::string containerfile;         // relative to the data root
  std::vector<std::string> options;  // the keys the recipe takes besides `builtin`
  std::string what;                  // one line for docs and errors
};

const std::vector<BuiltinImageRecipe>& builtin_image_recipes();
const BuiltinImageRecipe* find_builtin_image(const std::string& name);

// An option a cell gave, with where it stands (for errors).
struct BuiltinOption {
  std::string key, value;
  SourcePos pos;
};

struct BuiltinImageError {
  SourcePos pos;
  std::string message;
};

// Fills `cell.image` (builtin, containerfile, args) from the recipe, the options and the
// cell's torch, torchvision and CUDA. Errors name the option at fault; none: ok.
std::vector<BuiltinImageError> resolve_builtin_image(const BuiltinImageRecipe& recipe,
                                                     const std::vector<BuiltinOption>& options, SourcePos where,
                                                     Cell& cell);

// The Debian suite that ships a torch version as its python3-torch ("" if none does).
std::string debian_suite_for_torch(const std::string& torch);

}  // namespace opmatrix
