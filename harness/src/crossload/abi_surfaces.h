// Both sides of the load prediction (crossload/load_prediction.h) for the cells of a cross-load: each
// build's imports read in its own cell's image, each runtime's exports in its own, by
// scripts/cell/abi_surface.py. Kept in results/_abi/<cell>.{imports,exports}.json with the key
// they depend on (the libraries' hashes, the image), so a later cross-load reads them again
// only when that changed.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "matrix/model.h"
#include "run/cell_runner.h"
#include "engine/engine.h"
#include "crossload/load_prediction.h"

namespace opmatrix {

class AbiSurfaces {
 public:
  AbiSurfaces(Engine& engine, std::string results_dir, const Progress& progress);

  // The imports of each of `host_libraries` (all built in `cell`, under its build folder), by
  // host path; empty when the step failed (said on progress).
  std::map<std::string, LibraryImports> imports(const Cell& cell, const std::string& image,
                                                const std::vector<std::string>& host_libraries, const std::string& key);
  std::optional<RuntimeExports> exports(const Cell& cell, const std::string& image);

 private:
  nlohmann::json read_or_run(const Cell& cell, const std::string& image, const std::string& kind,
                             const std::string& key, std::vector<std::string> args);

  Engine& engine_;
  std::string dir_;
  const Progress& progress_;
};

}  // namespace opmatrix
