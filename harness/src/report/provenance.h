// Which opmatrix made a report: the version that judged the verdicts (the one rendering: every
// verdict rule lives in the binary) and the versions that ran the cells. A new check or rule can
// turn a green red between versions; the report says which versions to read CHANGELOG.md for.
#pragma once

#include <map>
#include <string>

#include "report/results_set.h"

namespace opmatrix {

// Cells per harness version that ran them ("unknown" for a results file without one).
std::map<std::string, int> cells_run_by(const ResultsSet& set);

// "0.1.0 (2), 0.2.0 (8)": versions and their cell counts, as the report and `opmatrix diff` say them.
std::string runs_text(const std::map<std::string, int>& run_by);

// "Verdicts by opmatrix 0.2.0; cells run by 0.1.0 (2), 0.2.0 (8)." — or "…; every cell run by
// it." when they are the same version.
std::string provenance_line(const ResultsSet& set);

}  // namespace opmatrix
