#include "init/known_cells.h"

#include "images/image_kinds.h"

namespace opmatrix {

const std::vector<KnownCell>& known_cells() {
  // Built on first use, after every kind has registered (static initialisation is over).
  static const std::vector<KnownCell> cells = [] {
    std::vector<KnownCell> out;
    for (const ImageKind* kind : image_kinds())
      for (auto& c : kind->init_cells()) out.push_back(std::move(c));
    return out;
  }();
  return cells;
}

std::string known_cell_id(const std::string& prefix, const KnownCell& cell) { return prefix + "-" + cell.id; }

}  // namespace opmatrix
