#include "init/known_cells.h"

#include <fmt/format.h>

#include "matrix/versions.h"

namespace opmatrix {

const std::vector<KnownCell>& known_cells() {
  static const std::vector<KnownCell> cells = {
      {"2.6.0", "0.21.0", "none", "debian", "trixie",
       "Debian's own torch and torchvision (CPU): what `apt install python3-torch` users have"},
      {"2.15.0", "0.29.2", "13.2", "pypi", "",
       "The newest torch on PyPI, with CUDA. torchvision 0.29.2 is what pip resolves next to it (built for "
       "torch 2.14, it asks for >= 2.14): `opmatrix validate` warns about the pair, the torchvision check "
       "tells whether it works"},
      {"2.5.1", "0.20.1", "12.4", "pypi", "",
       "An older torch on PyPI, with CUDA: finds the APIs your library uses that older torch lacks"},
  };
  return cells;
}

std::string known_cell_id(const std::string& prefix, const KnownCell& cell) {
  const std::string device = cell.cuda == "none" ? "cpu" : "cu" + cell.cuda;
  if (cell.builtin == "debian") {
    const auto mm = major_minor(cell.torch);
    const std::string torch = mm ? fmt::format("{}.{}", mm->major, mm->minor) : cell.torch;
    return fmt::format("{}-{}-torch{}-{}", prefix, cell.suite, torch, device);
  }
  return fmt::format("{}-{}-torch{}-{}", prefix, cell.builtin, cell.torch, device);
}

}  // namespace opmatrix
