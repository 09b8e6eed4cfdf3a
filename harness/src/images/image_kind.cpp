#include "images/image_kind.h"

namespace opmatrix {

const BuiltinOption* ImageRequest::option(const std::string& key) const {
  for (const auto& o : options)
    if (o.key == key) return &o;
  return nullptr;
}

void add_build_arg(Cell& cell, const std::string& key, const std::string& value) {
  if (!value.empty()) cell.image.args.emplace_back(key, value);
}

}  // namespace opmatrix
