// One table per op library of the matrix's projects: its ops down, its cells across, each entry
// what the op came to there under the verdict rules (report/verdict.h), naming the checks.
#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "report/extra_tables.h"
#include "report/render.h"
#include "report/verdict.h"

namespace opmatrix {

namespace {

// An op's results in one cell: "✔", "◐ compile, export", "✘ registration" or "○".
std::pair<std::string, std::string> op_entry(const CellResult& r, const std::string& op) {
  std::vector<std::string> breaking, limiting;
  bool ran = false;
  for (const auto& c : r.checks) {
    if (c.op != op || c.status == Status::skip) continue;
    ran = true;
    const Weight w = weight_of(c);
    if (w == Weight::none) continue;
    const std::string name = check_and_subtest(c);
    auto& into = w == Weight::limits ? limiting : breaking;
    if (std::find(into.begin(), into.end(), name) == into.end()) into.push_back(name);
  }
  if (!breaking.empty()) return {fmt::format("✘ {}", fmt::join(breaking, ", ")), "fail"};
  if (!limiting.empty()) return {fmt::format("◐ {}", fmt::join(limiting, ", ")), "limits"};
  return ran ? std::pair<std::string, std::string>{"✔", "pass"} : std::pair<std::string, std::string>{"○", "notrun"};
}

}  // namespace

std::vector<Grid> library_tables(const ResultsSet& set) {
  std::map<std::string, std::vector<const CellResult*>> by_library;
  std::vector<std::string> order;
  for (const auto& r : set.cells) {
    if (!r.cell.contains("project")) continue;
    const std::string label = subject_of(r);
    if (!by_library.count(label)) order.push_back(label);
    by_library[label].push_back(&r);
  }
  std::vector<Grid> out;
  for (const auto& label : order) {
    auto cells = by_library[label];
    std::stable_sort(cells.begin(), cells.end(), [](const CellResult* a, const CellResult* b) {
      return version_less(a->cell.value("torch", ""), b->cell.value("torch", ""));
    });
    std::vector<std::string> ops;
    for (const auto* r : cells)
      for (const auto& c : r->checks)
        if (!c.op.empty() && !is_torchvision_op(c.op) && std::find(ops.begin(), ops.end(), c.op) == ops.end())
          ops.push_back(c.op);
    Grid g;
    g.id = "library-" + label;
    g.title = "Each op of " + label;
    g.caption = "Each op of the library (rows) in each of its cells (columns, by torch version): what it came to, "
                "naming the checks that did not pass.";
    g.legend = "✔ every check passes · ◐ works with limits (the checks it fails under) · ✘ broken (the checks) · ○ not "
               "checked there. The first row is the cell's verdict.";
    g.columns = {"op"};
    for (const auto* r : cells) g.columns.push_back(fmt::format("{} (torch {})", cell_id(*r), r->cell.value("torch", "")));
    std::vector<std::string> verdicts = {"(the cell)"}, classes;
    for (const auto* r : cells) {
      const CellVerdict v = assess(*r);
      // The ops' rows name their own limits; what breaks a cell may be no op's (build, load).
      verdicts.push_back(v.verdict == Verdict::works_with_limits ? verdict_symbol(v.verdict) : verdict_line(v, 1));
      classes.push_back(verdict_class(v.verdict));
    }
    g.rows.push_back(verdicts);
    g.classes.push_back(classes);
    for (const auto& op : ops) {
      std::vector<std::string> row = {op}, cls;
      for (const auto* r : cells) {
        auto [text, c] = op_entry(*r, op);
        row.push_back(text);
        cls.push_back(c);
      }
      g.rows.push_back(row);
      g.classes.push_back(cls);
    }
    out.push_back(std::move(g));
  }
  return out;
}

std::vector<SubjectSection> subject_sections(const ResultsSet& set) {
  std::vector<Grid> libraries = library_tables(set);
  std::vector<SubjectSection> out;
  for (const auto& subject : report_subjects(set)) {
    SubjectSection section{subject, std::nullopt};
    for (auto& g : libraries)
      if (!subject.empty() && g.id == "library-" + subject) section.ops = std::move(g);
    out.push_back(std::move(section));
  }
  return out;
}

}  // namespace opmatrix
