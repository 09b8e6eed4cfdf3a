#include "matrix/builtin_images.h"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "images/image_kinds.h"
#include "util/suggest.h"

namespace opmatrix {

const std::vector<BuiltinImageRecipe>& builtin_image_recipes() {
  // Built on first use, after every kind has registered (static initialisation is over).
  static const std::vector<BuiltinImageRecipe> recipes = [] {
    std::vector<BuiltinImageRecipe> out;
    for (const ImageKind* k : image_kinds()) out.push_back(k->recipe());
    return out;
  }();
  return recipes;
}

const BuiltinImageRecipe* find_builtin_image(const std::string& name) {
  const ImageKind* kind = find_image_kind(name);
  return kind ? &kind->recipe() : nullptr;
}

std::vector<BuiltinImageError> resolve_builtin_image(const BuiltinImageRecipe& recipe,
                                                     const std::vector<BuiltinOption>& options, SourcePos where,
                                                     Cell& cell) {
  std::vector<BuiltinImageError> errors;
  for (const auto& o : options)
    if (std::find(recipe.options.begin(), recipe.options.end(), o.key) == recipe.options.end())
      errors.push_back({o.pos, fmt::format("the built-in image '{}' takes no option '{}' (it takes: {}){}", recipe.name,
                                           o.key, fmt::join(recipe.options, ", "), did_you_mean(o.key, recipe.options))});
  if (!errors.empty()) return errors;

  cell.image.builtin = recipe.name;
  cell.image.containerfile = recipe.containerfile;
  cell.image.args.clear();
  if (const ImageKind* kind = find_image_kind(recipe.name))
    kind->resolve(ImageRequest{options, where, errors}, cell);
  else
    errors.push_back({where, fmt::format("no built-in image '{}'", recipe.name)});  // a recipe of no kind
  return errors;
}

}  // namespace opmatrix
