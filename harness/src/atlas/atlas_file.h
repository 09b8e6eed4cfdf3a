// The atlas file (atlas.yaml): op libraries that ship compiled PyTorch extensions as PyPI
// wheels, their releases, and the runtimes (cells of a matrix file: an image and its torch)
// every release is checked in. Read and validated like matrix.yaml (FILE:LINE:COL errors), then
// expanded into one cell per pair (library release x runtime), which `opmatrix atlas run` runs
// with the steps marked for the atlas (checks/registry.h, StepSpec::in_atlas).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "matrix/diagnostic.h"
#include "matrix/model.h"

namespace opmatrix {

struct AtlasLibrary {
  std::string name;                   // its PyPI distribution (torchaudio, fbgemm-gpu-cpu)
  std::string import_module;          // what its users import ("" = none)
  std::string ns;                     // its dispatcher namespace ("" = none known)
  std::vector<std::string> releases;  // versions, oldest first as written
  std::string notes;
  SourcePos pos;
};

struct Atlas {
  std::string file;
  std::string matrix_file;             // the matrix whose cells are the runtimes (absolute)
  std::vector<std::string> runtimes;   // cell ids of that matrix, in column order
  std::vector<AtlasLibrary> libraries;
  Matrix pairs;                        // one cell per library release x runtime, runtime-major
};

struct AtlasLoad {
  std::optional<Atlas> atlas;  // set only when there are no errors
  std::vector<Diagnostic> diagnostics;
};

AtlasLoad load_atlas_file(const std::string& path);
AtlasLoad load_atlas_text(const std::string& text, const std::string& file_name, const std::string& base_dir);

// The id of the pair cell: "torchaudio2.5.1@pypi-torch2.5.1-cu12.4".
std::string atlas_pair_id(const std::string& library, const std::string& release, const std::string& runtime);

}  // namespace opmatrix
