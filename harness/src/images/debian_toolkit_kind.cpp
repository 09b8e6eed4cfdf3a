#include "images/debian_toolkit_kind.h"

#include <fmt/format.h>

#include "images/debian_suites.h"

namespace opmatrix {

void DebianToolkitKind::resolve(const ImageRequest& request, Cell& cell) const {
  add_build_arg(cell, "SUITE", suite_for_debian_torch(request, cell));
  if (!cell.has_cuda())
    request.error(request.where, fmt::format("the built-in image '{}' brings a CUDA toolkit, but the cell says cuda "
                                             "none: say which CUDA (cuda: \"12.4\") or use builtin debian",
                                             name()));
}

std::string DebianToolkitKind::cuda_layers_key(const Cell& cell) const {
  std::string key = "debian toolkit";
  for (const auto& [k, v] : cell.image.args)
    if (k == "SUITE") key += "|" + k + "=" + v;
  return key;
}

}  // namespace opmatrix
