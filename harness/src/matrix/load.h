// Reads matrix.yaml: parse, validate every field against the schema in docs/matrix.md,
// expand cell templates, and report every problem with its line and column.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "matrix/diagnostic.h"
#include "matrix/model.h"

namespace opmatrix {

struct LoadResult {
  std::optional<Matrix> matrix;  // set only when there are no errors
  std::vector<Diagnostic> diagnostics;
};

// `base_dir` is where relative paths in the file (Containerfiles) are resolved and confined.
LoadResult load_matrix_text(const std::string& text, const std::string& file_name,
                            const std::string& base_dir);
// `base_dir` "" = the file's folder.
LoadResult load_matrix_file(const std::string& path, const std::string& base_dir = "");

}  // namespace opmatrix
