// The matrix file `opmatrix init` writes: the library as a project every cell checks, the
// known starting cells, and what init found, as comments the user can check against the code.
#pragma once

#include <string>

#include "init/library_survey.h"

namespace opmatrix {

struct InitMatrixOptions {
  std::string id_prefix;     // starts every cell id; a safe file name already
  std::string project_path;  // the library folder relative to the matrix file's folder ("." = the same)
  std::string file_name;     // the matrix file's own name, for the commands its header suggests
  std::string samples_file;  // the samples file beside it (init_samples.h), "" = none
};

std::string render_init_matrix(const LibrarySurvey& survey, const InitMatrixOptions& opts);

// A distribution or folder name as a cell id prefix: lower case, [a-z0-9-] ("Torch_Scatter" ->
// "torch-scatter"); "lib" when nothing is left.
std::string id_prefix_for(const std::string& name);

}  // namespace opmatrix
