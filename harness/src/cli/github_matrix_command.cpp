#include <ostream>

#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "matrix/to_json.h"
#include "crossload/cross_load_jobs.h"

namespace opmatrix {

int github_matrix_command(const GithubMatrixOptions& opts, std::ostream& out, std::ostream& err) {
  auto m = load_matrix_or_report(opts.matrix, err);
  if (!m) return kExitUsage;
  nlohmann::json include = nlohmann::json::array();
  std::vector<const Cell*> selected;
  for (const auto& c : m->cells)
    if (cell_selected(c, opts.where)) {
      include.push_back(github_job_entry(c));
      selected.push_back(&c);
    }
  // One line: it goes to $GITHUB_OUTPUT as `matrix=<json>`.
  out << (opts.cross_load ? cross_load_job_matrix(selected) : nlohmann::json{{"include", include}}).dump() << '\n';
  return kExitOk;
}

}  // namespace opmatrix
