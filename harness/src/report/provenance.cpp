#include "report/provenance.h"

#include <fmt/format.h>

#include "version.h"

namespace opmatrix {

std::map<std::string, int> cells_run_by(const ResultsSet& set) {
  std::map<std::string, int> by;
  for (const auto& r : set.cells) ++by[r.harness_version.empty() ? "unknown" : r.harness_version];
  return by;
}

std::string runs_text(const std::map<std::string, int>& run_by) {
  std::string runs;
  for (const auto& [version, n] : run_by) runs += fmt::format("{}{} ({})", runs.empty() ? "" : ", ", version, n);
  return runs.empty() ? "no cells" : runs;
}

std::string provenance_line(const ResultsSet& set) {
  const auto by = cells_run_by(set);
  std::string line = fmt::format("Verdicts by opmatrix {}", kOpmatrixVersion);
  if (by.empty()) return line + ".";
  if (by.size() == 1 && by.begin()->first == kOpmatrixVersion) return line + "; every cell run by it.";
  return fmt::format("{}; cells run by {} (what changed between versions: CHANGELOG.md).", line, runs_text(by));
}

}  // namespace opmatrix
