#include "images/image_kinds.h"

#include <algorithm>
#include <stdexcept>

namespace opmatrix {

namespace {

// A function's static: filled by registrars of other files during static initialisation,
// whose order across files is unspecified, so it must exist before the first of them runs.
std::vector<const ImageKind*>& registry() {
  static std::vector<const ImageKind*> kinds;
  return kinds;
}

}  // namespace

ImageKindRegistrar::ImageKindRegistrar(const ImageKind& kind) {
  auto& kinds = registry();
  if (find_image_kind(kind.name())) throw std::logic_error("image kind '" + kind.name() + "' registered twice");
  const auto at = std::lower_bound(kinds.begin(), kinds.end(), kind.name(),
                                   [](const ImageKind* k, const std::string& name) { return k->name() < name; });
  kinds.insert(at, &kind);
}

const std::vector<const ImageKind*>& image_kinds() { return registry(); }

const ImageKind* find_image_kind(const std::string& name) {
  for (const ImageKind* k : registry())
    if (k->name() == name) return k;
  return nullptr;
}

}  // namespace opmatrix
