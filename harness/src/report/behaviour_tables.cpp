// What ops DO under PyTorch's own tooling, per op: the behaviour checks (the registry's
// behaviour columns: a symbol per sub-test, their captions and legend words) as two grids. The checked library's ops get a row per
// cell and op; torchvision's own ops, the same in every cell of one runtime, a row per runtime.
#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "checks/registry.h"
#include "report/extra_tables.h"

namespace opmatrix {

namespace {

constexpr std::size_t kMaxNotes = 40;

bool is_behaviour_check(const std::string& check) {
  static const std::vector<std::string> checks = behaviour_columns();
  return std::find(checks.begin(), checks.end(), check) != checks.end();
}

// The worst status among one op's results of `check` in a cell (a result without a sub-test,
// such as "this torch has no opcheck", stands for every sub-test); nullopt when it has none.
std::optional<Status> status_of(const CellResult& r, const std::string& op, const std::string& check,
                                const std::string& subtest = "") {
  std::vector<Status> found;
  for (const auto& c : r.checks)
    if (c.op == op && c.check == check && (subtest.empty() || c.subtest.empty() || c.subtest == subtest))
      found.push_back(c.status);
  if (found.empty()) return std::nullopt;
  return worst_of(found);
}

// One grid entry: a symbol per part ("✔ ✔ ✘ ✔"), classed by the worst part.
struct Entry {
  std::string text;
  std::vector<Status> parts;

  void add(std::optional<Status> s) {
    text += (text.empty() ? "" : " ") + std::string(s ? status_symbol(*s) : "○");
    if (s) parts.push_back(*s);
  }
  std::string css() const { return parts.empty() ? "notrun" : status_class(worst_of(parts)); }
};

// A check's entry for one op: a symbol per sub-test (opcheck's four), else one symbol.
void add_check(Entry& e, const CellResult& r, const std::string& op, const CheckSpec& check) {
  if (check.subtests.empty()) return e.add(status_of(r, op, check.name));
  for (const auto& subtest : check.subtests) e.add(status_of(r, op, check.name, subtest));
}

// The behaviour checks (registry order), or only those that also judge torchvision's own ops.
std::vector<const CheckSpec*> behaviour_checks(bool torchvision_ops) {
  std::vector<const CheckSpec*> out;
  for (const auto& name : behaviour_columns()) {
    const CheckSpec* spec = find_check(name);
    if (spec && (!torchvision_ops || spec->torchvision_ops)) out.push_back(spec);
  }
  return out;
}

// "a, b, and c": the captions' phrases as one sentence's list.
std::string listed(const std::vector<std::string>& phrases, const std::string& last_joiner) {
  std::string out;
  for (std::size_t i = 0; i < phrases.size(); ++i)
    out += (i == 0 ? "" : i + 1 == phrases.size() ? last_joiner : ", ") + phrases[i];
  return out;
}

// "opcheck schema · autograd registration · …": a check's legend word with its sub-tests'.
std::string legend_of(const CheckSpec& c, const std::string& between) {
  if (c.report.subtest_labels.empty()) return c.report.label;
  return c.report.label + between + fmt::format("{}", fmt::join(c.report.subtest_labels, " · "));
}

// The behaviour ops of a cell, in the order its results list them.
std::vector<std::string> ops_in(const CellResult& r, bool torchvision) {
  std::vector<std::string> ops;
  for (const auto& c : r.checks)
    if (is_behaviour_check(c.check) && !c.op.empty() && is_torchvision_op(c.op) == torchvision &&
        std::find(ops.begin(), ops.end(), c.op) == ops.end())
      ops.push_back(c.op);
  return ops;
}

std::string note_of(const std::string& where, const CheckResult& c) {
  const std::string what = c.check + (c.subtest.empty() ? "" : " " + c.subtest);
  return fmt::format("{} · {} · {}{}: {}", where, c.op, what, c.sample.empty() ? "" : " on " + c.sample, c.message);
}

// Lines under a grid: every unexpected red with its sample and message; expected failures,
// whose reason says it all, one line per check and reason with the ops it covers.
void add_notes(Grid& g, const std::string& where, const CellResult& r, const std::vector<std::string>& ops,
               std::size_t& left_out) {
  auto add = [&](std::string line) {
    if (g.notes.size() < kMaxNotes) g.notes.push_back(std::move(line));
    else ++left_out;
  };
  std::vector<std::pair<std::string, std::vector<std::string>>> expected;  // (what + reason, ops)
  for (const auto& c : r.checks) {
    if (!is_behaviour_check(c.check) || c.status == Status::pass || c.status == Status::skip) continue;
    if (std::find(ops.begin(), ops.end(), c.op) == ops.end()) continue;
    if (c.status != Status::xfail) {
      add(note_of(where, c));
      continue;
    }
    const std::string what = fmt::format("{}{} (expected: {})", c.check, c.subtest.empty() ? "" : " " + c.subtest,
                                         c.expected_reason);
    auto it = std::find_if(expected.begin(), expected.end(), [&](const auto& e) { return e.first == what; });
    if (it == expected.end()) expected.push_back({what, {c.op}});
    else it->second.push_back(c.op);
  }
  for (const auto& [what, covered] : expected) add(fmt::format("{} · {} · {}", where, fmt::join(covered, ", "), what));
}

void close_notes(Grid& g, std::size_t left_out) {
  if (left_out > 0)
    g.notes.push_back(fmt::format("… and {} more: each cell's results/<cell>.json has them all", left_out));
}

// A grid's head from the registry's behaviour columns (or those that also judge torchvision's
// own ops): its checks, columns, caption and legend.
Grid behaviour_head(bool torchvision, std::vector<const CheckSpec*>& checks) {
  Grid g;
  checks = behaviour_checks(torchvision);
  std::vector<std::string> captions, legends;
  for (const CheckSpec* c : checks) {
    captions.push_back(torchvision ? c->report.torchvision_caption : c->report.caption);
    if (torchvision) legends.push_back(legend_of(*c, " "));
    else if (!c->report.subtest_labels.empty()) legends.push_back(legend_of(*c, ": "));
    if (!torchvision) g.columns.push_back(c->name);
  }
  g.notes_title = "what failed, with torch's own message";
  if (torchvision) {
    g.id = "torchvision-behaviour";
    g.title = "torchvision's own ops";
    g.caption = "torchvision's ops, as each runtime's torchvision registers them, " + listed(captions, " and ") +
                ": the library the upstream reports are about, checked the same way.";
    g.legend = fmt::format("{} — ✔ pass · ⚠ expected failure · ✘ fail · ○ not run", fmt::join(legends, " | "));
    return g;
  }
  g.id = "behaviour";
  g.title = "Behaviour per op";
  g.columns.insert(g.columns.begin(), {"cell", "op"});
  g.caption = "What each checked op does under PyTorch's own tooling, on its samples: " + listed(captions, ", and ") + ".";
  g.legend = fmt::format("{} — ✔ pass · ⚠ expected failure · ✘ fail · ○ not run (the results say why)",
                         fmt::join(legends, "; "));
  return g;
}

Grid library_ops_table(const ResultsSet& set) {
  std::vector<const CheckSpec*> checks;
  Grid g = behaviour_head(false, checks);
  std::size_t left_out = 0;
  for (const auto& r : set.cells) {
    const std::vector<std::string> ops = ops_in(r, false);
    for (const auto& op : ops) {
      std::vector<std::string> row = {cell_id(r), op};
      std::vector<std::string> cls = {""};
      for (const CheckSpec* c : checks) {
        Entry e;
        add_check(e, r, op, *c);
        row.push_back(e.text);
        cls.push_back(e.css());
      }
      g.rows.push_back(row);
      g.classes.push_back(cls);
    }
    add_notes(g, cell_id(r), r, ops, left_out);
  }
  close_notes(g, left_out);
  return g;
}

// torchvision is the same in every cell of one runtime: its first cell with results speaks for it.
Grid torchvision_ops_table(const ResultsSet& set) {
  std::vector<const CheckSpec*> checks;
  Grid g = behaviour_head(true, checks);
  std::set<std::string> ops;
  std::vector<const CellResult*> runtimes;
  std::set<std::string> seen;
  for (const auto& r : set.cells) {
    const std::vector<std::string> found = ops_in(r, true);
    if (found.empty()) continue;
    const std::string key = fmt::format("torch {} · torchvision {} · {}", r.cell.value("torch", ""),
                                        r.cell.value("torchvision", ""), r.cell.value("cuda", ""));
    if (!seen.insert(key).second) continue;
    runtimes.push_back(&r);
    ops.insert(found.begin(), found.end());
  }
  if (runtimes.empty()) return g;
  g.columns = {"torch · torchvision · CUDA (cell)"};
  for (const auto& op : ops) g.columns.push_back(op.substr(std::string("torchvision::").size()));
  std::size_t left_out = 0;
  for (const CellResult* r : runtimes) {
    const std::string runtime = fmt::format("{} · {} · {}", r->cell.value("torch", ""), r->cell.value("torchvision", ""),
                                            r->cell.value("cuda", ""));
    std::vector<std::string> row = {fmt::format("{} ({})", runtime, cell_id(*r))};
    std::vector<std::string> cls;
    for (const auto& op : ops) {
      Entry e;
      for (std::size_t i = 0; i < checks.size(); ++i) {
        if (i > 0) e.text += " |";
        add_check(e, *r, op, *checks[i]);
      }
      row.push_back(e.text);
      cls.push_back(e.css());
    }
    g.rows.push_back(row);
    g.classes.push_back(cls);
    add_notes(g, "torch " + r->cell.value("torch", ""), *r, std::vector<std::string>(ops.begin(), ops.end()), left_out);
  }
  close_notes(g, left_out);
  return g;
}

}  // namespace

std::vector<Grid> behaviour_tables(const ResultsSet& set) {
  return {library_ops_table(set), torchvision_ops_table(set)};
}

}  // namespace opmatrix
