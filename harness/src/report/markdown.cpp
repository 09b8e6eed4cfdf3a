#include <fmt/format.h>

#include "checks/registry.h"
#include "report/extra_tables.h"
#include "report/render.h"
#include "util/escape.h"

namespace opmatrix {

std::string check_label(const CheckResult& c) {
  if (!c.arch.empty()) return fmt::format("{} {}", c.check, c.arch);
  const std::string check = c.subtest.empty() ? c.check : fmt::format("{} {}", c.check, c.subtest);
  if (c.op.empty()) return check;
  return fmt::format("{} · {}", c.op, check);
}

namespace {

// Markdown table cells cannot hold newlines or bare pipes.
std::string md_cell(const std::string& s, std::size_t limit = 300) {
  return escape_md_cell(s.substr(0, limit)) + (s.size() > limit ? " …" : "");
}

// The log of the step a check's result comes from (the registry names the steps): the one
// that did not pass, else the first that ran.
std::string log_of(const CellResult& r, const CheckResult& c) {
  const CheckSpec* spec = find_check(c.check);
  if (!spec) return "";
  std::string first;
  for (const auto& name : spec->steps)
    for (const auto& s : r.steps) {
      if (s.name != name || s.log.empty()) continue;
      if (is_bad(s.status)) return s.log;
      if (first.empty()) first = s.log;
    }
  return first;
}

}  // namespace

std::string render_markdown(const ResultsSet& set) {
  std::string md = "# opmatrix compatibility report\n\n";
  const CompatTable t = build_table(set);
  md += "| torch | torchvision |";
  for (const auto& c : t.columns) md += fmt::format(" {} |", c == "cpu" ? "cpu" : "CUDA " + c);
  md += "\n|---|---|";
  for (std::size_t i = 0; i < t.columns.size(); ++i) md += "---|";
  md += "\n";
  for (std::size_t r = 0; r < t.rows.size(); ++r) {
    md += fmt::format("| {} | {} |", t.rows[r].first, t.rows[r].second);
    for (std::size_t c = 0; c < t.columns.size(); ++c) {
      auto it = t.entries.find({r, c});
      md += it == t.entries.end() ? " |" : fmt::format(" {} |", verdict_symbol(it->second.verdict));
    }
    md += "\n";
  }
  md += "\n✔ pass · ⚠ expected failure (declared in matrix.yaml) · ✘ failure · ○ not run here\n";
  for (const auto& e : set.errors) md += fmt::format("\n> ⚠ {}\n", md_cell(e, 500));
  for (const auto& g : extra_tables(set)) md += grid_markdown(g);

  md += "\n## Cells\n";
  for (const auto& r : set.cells) {
    md += fmt::format("\n### {} — {}\n\n", cell_id(r), verdict_symbol(verdict_of(r)));
    md += fmt::format("torch {} · torchvision {} · CUDA {} · engine {} · {:.0f} s\n\n", r.cell.value("torch", ""),
                      r.cell.value("torchvision", ""), r.cell.value("cuda", ""), r.engine.empty() ? "-" : r.engine,
                      r.seconds);
    md += "| check | status | message |\n|---|---|---|\n";
    for (const auto& c : r.checks)
      md += fmt::format("| {} | {} | {} |\n", md_cell(check_label(c)), to_string(c.status),
                        md_cell(c.expected_reason.empty() ? c.message : c.expected_reason + " — " + c.message));
    bool any = false;
    for (const auto& c : r.checks) {
      if (!c.diagnosis || c.status == Status::pass || c.status == Status::skip) continue;
      if (!any) md += "\n**Diagnoses**\n\n";
      any = true;
      md += fmt::format("- **{}** ({}): {}\n  - fix: {}\n  - reproduce: `{}`\n", check_label(c), c.diagnosis->kind,
                        md_cell(c.diagnosis->summary, 500), md_cell(c.diagnosis->fix, 500),
                        md_cell(c.diagnosis->repro, 600));
      if (!c.diagnosis->evidence.empty()) md += fmt::format("  - evidence: `{}`\n", md_cell(c.diagnosis->evidence, 500));
      const std::string log = log_of(r, c);
      if (!log.empty()) md += fmt::format("  - log: [{}]({})\n", log, log);
    }
  }
  return md;
}

}  // namespace opmatrix
