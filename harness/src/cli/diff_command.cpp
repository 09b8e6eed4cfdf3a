#include <ostream>

#include <fmt/format.h>

#include "cli/commands.h"
#include "diff/diff_render.h"
#include "diff/results_diff.h"
#include "report/results_set.h"

namespace opmatrix {

namespace {

// A gate that skipped a broken file would compare less than it claims: every unreadable file,
// and a side with no results at all, is bad input.
bool load_side(const std::string& path, ResultsSet& set, std::ostream& err) {
  set = load_results_from(path);
  for (const auto& e : set.errors) err << "opmatrix diff: error: " << e << "\n";
  if (set.errors.empty() && set.cells.empty())
    err << fmt::format("opmatrix diff: error: {}: no results (no <cell>.json in the folder, no cells in the report)\n",
                       path);
  return set.errors.empty() && !set.cells.empty();
}

}  // namespace

int diff_command(const DiffOptions& opts, std::ostream& out, std::ostream& err) {
  ResultsSet base, head;
  const bool base_ok = load_side(opts.base, base, err);
  const bool head_ok = load_side(opts.head, head, err);
  if (!base_ok || !head_ok) return kExitUsage;
  const Diff d = diff_results(base, head);
  const std::string text = opts.format == "json" ? render_diff_json(d, opts.base, opts.head)
                                                 : render_diff_markdown(d, opts.base, opts.head);
  if (!print_or_write(opts.output, text, "diff", out, err)) return kExitUsage;
  // One line on stderr whatever the format: the CI log shows the verdict beside the exit status.
  err << fmt::format("opmatrix diff: {}{}\n", diff_summary(d),
                     writes_to_stdout(opts.output) ? "" : " -> " + opts.output);
  return has_regressions(d) ? kExitFailed : kExitOk;
}

}  // namespace opmatrix
