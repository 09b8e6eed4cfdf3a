#include <ostream>

#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "matrix/to_json.h"

namespace opmatrix {

int github_matrix_command(const GithubMatrixOptions& opts, std::ostream& out, std::ostream& err) {
  auto m = load_matrix_or_report(opts.matrix, err);
  if (!m) return kExitUsage;
  nlohmann::json include = nlohmann::json::array();
  for (const auto& c : m->cells)
    if (cell_selected(c, opts.where)) include.push_back(github_job_entry(c));
  // One line: it goes to $GITHUB_OUTPUT as `matrix=<json>`.
  out << nlohmann::json{{"include", include}}.dump() << '\n';
  return kExitOk;
}

}  // namespace opmatrix
