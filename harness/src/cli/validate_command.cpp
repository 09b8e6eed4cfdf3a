#include <ostream>

#include <fmt/format.h>

#include "cli/commands.h"
#include "matrix/load.h"

namespace opmatrix {

int validate_command(const ValidateOptions& opts, std::ostream& out, std::ostream& err) {
  LoadResult r = load_matrix_file(opts.matrix);
  int warnings = 0;
  for (const auto& d : r.diagnostics) {
    err << format_diagnostic(d) << '\n';
    if (d.severity == Severity::warning) ++warnings;
  }
  if (!r.matrix) return kExitUsage;
  if (opts.werror && warnings > 0) return kExitUsage;
  const Matrix& m = *r.matrix;
  int local = 0, github = 0, gpu = 0, by_default = 0;
  for (const auto& c : m.cells) {
    local += c.runs("local");
    github += c.runs("github");
    gpu += c.runs("gpu");
    by_default += cell_selected(c, "default");
  }
  out << fmt::format("{}: ok: {} cells ({} local, {} in the default run, {} github, {} gpu), {} ops, "
                     "{} warning{}\n",
                     opts.matrix, m.cells.size(), local, by_default, github, gpu, m.ops.size(), warnings,
                     warnings == 1 ? "" : "s");
  return kExitOk;
}

}  // namespace opmatrix
