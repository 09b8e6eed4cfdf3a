#include <ostream>

#include "cli/commands.h"
#include "matrix/load.h"

namespace opmatrix {

std::optional<Matrix> load_matrix_or_report(const std::string& path, std::ostream& err) {
  LoadResult r = load_matrix_file(path);
  for (const auto& d : r.diagnostics) err << format_diagnostic(d) << '\n';
  return std::move(r.matrix);
}

bool cell_selected(const Cell& cell, const std::string& where) {
  if (where == "all") return true;
  if (where == "default") return cell.runs("local") && cell.in_default;
  return cell.runs(where);
}

}  // namespace opmatrix
