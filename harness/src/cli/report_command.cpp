#include <filesystem>
#include <ostream>

#include <fmt/format.h>

#include "cli/commands.h"
#include "report/render.h"

namespace opmatrix {

int report_command(const ReportOptions& opts, std::ostream& out, std::ostream& err) {
  // No results at all (no run yet, or a run that stopped before its first cell) is not bad
  // input: one line and its own status, so that scripts can tell it from a broken results file.
  auto nothing_to_report = [&] {
    err << fmt::format("opmatrix report: nothing to report: {} holds no results (no cell has run; `opmatrix run` "
                       "writes them); no report written\n", opts.results);
    return kExitNothingToReport;
  };
  if (!std::filesystem::is_directory(opts.results)) return nothing_to_report();
  ResultsSet set = load_results(opts.results);
  if (set.cells.empty() && set.errors.empty() && !set.cross_load.is_object()) return nothing_to_report();
  for (const auto& e : set.errors) err << "opmatrix report: error: " << e << "\n";
  std::string text;
  if (opts.format == "md") text = render_markdown(set, opts.details);
  else if (opts.format == "html") text = render_html(set);
  else if (opts.format == "junit") text = render_junit(set);
  else text = render_json(set);
  if (!print_or_write(opts.output, text, "report", out, err)) return kExitUsage;
  if (!writes_to_stdout(opts.output)) {
    err << fmt::format("opmatrix report: {} cells -> {}\n", set.cells.size(), opts.output);
  }
  // The report still renders; the unreadable files are bad input.
  return set.errors.empty() ? kExitOk : kExitUsage;
}

}  // namespace opmatrix
