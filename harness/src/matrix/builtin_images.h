// The images opmatrix knows how to build, by name: a cell says which torch/torchvision/CUDA
// it wants and where they come from, and the recipe (a Containerfile of the data root plus
// build args derived from the cell) follows. A user never copies our build args by hand.
// The kinds themselves, one module each, are in images/ (images/image_kinds.h); this is what
// the matrix loader asks of them.
#pragma once

#include <string>
#include <vector>

#include "images/image_kind.h"
#include "matrix/model.h"

namespace opmatrix {

// Every built-in kind's recipe, in name order.
const std::vector<BuiltinImageRecipe>& builtin_image_recipes();
const BuiltinImageRecipe* find_builtin_image(const std::string& name);

// Fills `cell.image` (builtin, containerfile, args) from the recipe, the options and the
// cell's torch, torchvision and CUDA. Errors name the option at fault; none: ok.
std::vector<BuiltinImageError> resolve_builtin_image(const BuiltinImageRecipe& recipe,
                                                     const std::vector<BuiltinOption>& options, SourcePos where,
                                                     Cell& cell);

}  // namespace opmatrix
