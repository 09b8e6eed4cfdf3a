// The cells `opmatrix init` proposes for a new library: one table, so that a new torch release
// is one edit here.
#pragma once

#include <string>
#include <vector>

namespace opmatrix {

struct KnownCell {
  std::string torch;
  std::string torchvision;
  std::string cuda;         // "none" = CPU only
  std::string builtin;      // the built-in image: "debian" (Debian's packages) or "pypi" (pip wheels)
  std::string suite;        // debian only: bookworm, trixie, sid
  std::string why;          // the comment above the cell: why it is in the starting set
};

const std::vector<KnownCell>& known_cells();

// "<prefix>-trixie-torch2.6-cpu", "<prefix>-pypi-torch2.15.0-cu13.2": Debian cells name torch's
// MAJOR.MINOR (the suite fixes the rest), PyPI cells the exact release pip installs.
std::string known_cell_id(const std::string& prefix, const KnownCell& cell);

}  // namespace opmatrix
