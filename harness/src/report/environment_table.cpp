// The cells that exist to show how opmatrix diagnoses a broken environment (matrix.yaml's
// `diagnoses:`): out of the table of our ops, where they read as if our ops were broken, and
// listed here with what is broken, what opmatrix says of it and the fix.
#include <fmt/format.h>

#include "report/extra_tables.h"
#include "report/verdict.h"

namespace opmatrix {

namespace {

// The result that names the environment's fault: the first bad or declared-bad check with a
// diagnosis (the environment's own check comes first in the registry: versions, torchvision).
const CheckResult* named_fault(const CellResult& r) {
  for (const auto& c : r.checks)
    if ((is_bad(c.status) || c.status == Status::xfail) && c.diagnosis) return &c;
  return nullptr;
}

}  // namespace

Grid environments_table(const ResultsSet& set) {
  Grid g;
  g.id = "environments";
  g.title = "Environments opmatrix diagnoses";
  g.caption = "Cells that exist to show a broken environment (matrix.yaml's `diagnoses:`), not to test our ops: "
              "what is broken, what opmatrix says of it and the fix. They are not in the table of our ops.";
  g.columns = {"cell", "environment", "what is broken", "what opmatrix says", "the fix"};
  for (const auto& r : set.cells) {
    const std::string broken = r.cell.value("diagnoses", "");
    if (broken.empty()) continue;
    const std::string cuda = r.cell.value("cuda", "none");
    const CheckResult* fault = named_fault(r);
    const CellVerdict v = assess(r);
    g.rows.push_back({cell_id(r),
                      fmt::format("torch {} · torchvision {} · {}", r.cell.value("torch", ""),
                                  r.cell.value("torchvision", ""), cuda == "none" ? "CPU" : "CUDA " + cuda),
                      broken, fault ? fault->diagnosis->summary : verdict_line(v, kTableItems),
                      fault ? fault->diagnosis->fix : "—"});
    g.classes.push_back({"", "", verdict_class(v.verdict), ""});
  }
  return g;
}

}  // namespace opmatrix
