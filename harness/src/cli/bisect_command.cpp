#include <fnmatch.h>

#include <algorithm>
#include <optional>
#include <ostream>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "bisect/bisect.h"
#include "checks/registry.h"
#include "cli/commands.h"
#include "report/results_set.h"

namespace opmatrix {

namespace {

const std::string& axis_value(const Cell& c, const std::string& axis) {
  return axis == "cuda" ? c.cuda : axis == "torchvision" ? c.torchvision : c.torch;
}

bool matches(const std::string& id, const std::vector<std::string>& patterns) {
  return std::any_of(patterns.begin(), patterns.end(),
                     [&](const std::string& p) { return fnmatch(p.c_str(), id.c_str(), 0) == 0; });
}

const char* word(Probe::Outcome o) {
  switch (o) {
    case Probe::Outcome::good: return "good";
    case Probe::Outcome::bad: return "bad";
    case Probe::Outcome::untestable: return "untestable";
  }
  return "?";
}

// The axis: the cells of --cells, oldest first, one per value; nullopt (the reason on `err`)
// when two share a value or fewer than two match.
std::optional<std::vector<const Cell*>> axis_cells(const BisectOptions& opts, const Matrix& m, std::ostream& err) {
  std::vector<const Cell*> axis;
  for (const auto& c : m.cells)
    if (matches(c.id, opts.cells)) axis.push_back(&c);
  std::stable_sort(axis.begin(), axis.end(), [&](const Cell* a, const Cell* b) {
    return version_less(axis_value(*a, opts.axis), axis_value(*b, opts.axis));
  });
  for (std::size_t i = 1; i < axis.size(); ++i)
    if (axis_value(*axis[i], opts.axis) == axis_value(*axis[i - 1], opts.axis)) {
      err << fmt::format("opmatrix bisect: error: --cells: {} and {} both have {} {}; narrow the pattern so that "
                         "each {} appears once\n",
                         axis[i - 1]->id, axis[i]->id, opts.axis, axis_value(*axis[i], opts.axis), opts.axis);
      return std::nullopt;
    }
  if (axis.size() < 2) {
    err << fmt::format("opmatrix bisect: error: --cells {} matches {} cell(s) of {}; bisecting needs two or more\n",
                       fmt::join(opts.cells, " "), axis.size(), opts.run.matrix);
    return std::nullopt;
  }
  return axis;
}

// One point of the axis: its cell run alone (no cross-load; the run's own table is not
// printed), and its results judged for the target.
Probe probe_cell(const BisectOptions& opts, const Cell& cell, const std::string& value, std::ostream& err) {
  RunOptions run = opts.run;
  run.cells = {cell.id};
  run.where.clear();
  run.cross_load = false;
  std::ostringstream table;  // run's own summary table: the bisect prints its line instead
  run_command(run, table, err);
  const ResultsSet written = load_results_from(run.results + "/" + cell.id + ".json");
  const Probe p = written.cells.size() == 1 && written.errors.empty()
                      ? judge(written.cells.front(), BisectTarget{opts.check, opts.op, opts.subtest})
                      : Probe{Probe::Outcome::untestable,
                              written.errors.empty() ? "no results" : written.errors.front() + " (the run was interrupted?)"};
  err << fmt::format("opmatrix bisect: {} {} ({}): {}{}\n", opts.axis, value, cell.id, word(p.outcome),
                     p.why.empty() ? "" : " — " + p.why);
  return p;
}

// The why of the first bad point's probe ("" when none was probed there).
std::string why_first_bad(const BisectOutcome& o) {
  std::string why_bad;
  for (const auto& s : o.steps)
    if (s.index == o.first_bad) why_bad = s.probe.why;
  return why_bad;
}

nlohmann::json outcome_json(const BisectOptions& opts, const std::vector<const Cell*>& axis,
                            const std::vector<std::string>& values, const BisectOutcome& o) {
  nlohmann::json j = {{"check", opts.check}, {"op", opts.op}, {"subtest", opts.subtest}, {"axis", opts.axis},
                      {"points", values}, {"cell_runs", o.steps.size()}, {"found", o.found}};
  j["runs"] = nlohmann::json::array();
  for (const auto& s : o.steps)
    j["runs"].push_back({{"cell", axis[s.index]->id}, {opts.axis, values[s.index]}, {"outcome", word(s.probe.outcome)},
                         {"why", s.probe.why}});
  if (o.ends_hold) {
    j["first_bad"] = {{"cell", axis[o.first_bad]->id}, {opts.axis, values[o.first_bad]}, {"why", why_first_bad(o)}};
    j["last_good"] = {{"cell", axis[o.last_good]->id}, {opts.axis, values[o.last_good]}};
  }
  if (!o.error.empty()) j["error"] = o.error;
  return j;
}

std::string outcome_text(const BisectOptions& opts, const std::vector<const Cell*>& axis,
                         const std::vector<std::string>& values, const BisectOutcome& o) {
  if (!o.found)
    return fmt::format("no first bad {} found: {}\n{} cell runs for {} points on the axis\n", opts.axis, o.error,
                       o.steps.size(), axis.size());
  return fmt::format("first bad: {} {} (cell {})\n  {}\nlast good: {} {} (cell {})\n{} cell runs for {} points on the "
                     "axis\n",
                     opts.axis, values[o.first_bad], axis[o.first_bad]->id, why_first_bad(o), opts.axis,
                     values[o.last_good], axis[o.last_good]->id, o.steps.size(), axis.size());
}

}  // namespace

int bisect_command(const BisectOptions& opts, std::ostream& out, std::ostream& err) {
  auto m = load_matrix_or_report(opts.run.matrix, err);
  if (!m) return kExitUsage;
  const CheckSpec* spec = find_check(opts.check);
  if (!spec) {
    err << fmt::format("opmatrix bisect: error: --check {}: no such check (opmatrix checks lists them: {})\n",
                       opts.check, fmt::join(check_names(), ", "));
    return kExitUsage;
  }
  const std::optional<std::vector<const Cell*>> found = axis_cells(opts, *m, err);
  if (!found) return kExitUsage;
  const std::vector<const Cell*>& axis = *found;
  std::vector<std::string> values;
  for (const Cell* c : axis) values.push_back(axis_value(*c, opts.axis));
  err << fmt::format("opmatrix bisect: {} along {}: {} ({} cells)\n", opts.check, opts.axis, fmt::join(values, " "),
                     axis.size());

  const BisectOutcome o =
      bisect(axis.size(), [&](std::size_t i) { return probe_cell(opts, *axis[i], values[i], err); });
  out << (opts.json ? outcome_json(opts, axis, values, o).dump(2) + "\n" : outcome_text(opts, axis, values, o));
  if (o.found) return kExitOk;
  // A premise that does not hold (the ends) is bad input; an untestable range is a result.
  return o.ends_hold ? kExitFailed : kExitUsage;
}

}  // namespace opmatrix
