#include <fmt/format.h>

#include "checks/registry.h"
#include "report/extra_tables.h"
#include "report/provenance.h"
#include "report/render.h"
#include "report/verdict.h"
#include "util/escape.h"

namespace opmatrix {

std::string check_and_subtest(const CheckResult& c) {
  return c.subtest.empty() ? c.check : fmt::format("{} {}", c.check, c.subtest);
}

std::string check_label(const CheckResult& c) {
  if (!c.arch.empty()) return fmt::format("{} {}", c.check, c.arch);
  const std::string check = check_and_subtest(c);
  if (c.op.empty()) return check;
  return fmt::format("{} · {}", c.op, check);
}

namespace {

// Markdown table cells cannot hold newlines or bare pipes.
std::string md_cell(const std::string& s, std::size_t limit = 300) {
  return escape_md_cell(s.substr(0, limit)) + (s.size() > limit ? " …" : "");
}

// Text inside a link's [ ]: its own brackets would end the link early.
std::string link_text(const std::string& s) {
  std::string out;
  for (char c : md_cell(s)) {
    if (c == '[' || c == ']') out += '\\';
    out += c;
  }
  return out;
}

}  // namespace

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

// The compatibility table, each entry its verdict in words and a link to its cell's section.
std::string compat_table_markdown(const ResultsSet& set, const std::string& details_page, const std::string& subject) {
  const CompatTable t = build_table(set, subject);
  if (t.rows.empty()) return "";
  std::string md = "| torch | torchvision |";
  for (const auto& c : t.columns) md += fmt::format(" {} |", c == "cpu" ? "cpu" : "CUDA " + c);
  md += "\n|---|---|";
  for (std::size_t i = 0; i < t.columns.size(); ++i) md += "---|";
  md += "\n";
  for (std::size_t r = 0; r < t.rows.size(); ++r) {
    md += fmt::format("| {} | {} |", t.rows[r].first, t.rows[r].second);
    for (std::size_t c = 0; c < t.columns.size(); ++c) {
      auto it = t.entries.find({r, c});
      std::vector<std::string> shown;
      if (it != t.entries.end())
        for (const auto* cell : it->second.cells)
          shown.push_back(fmt::format("[{}]({}#{})", link_text(verdict_line(assess(*cell), kTableItems)), details_page,
                                      cell_anchor(*cell)));
      md += fmt::format(" {} |", fmt::join(shown, "<br>"));
    }
    md += "\n";
  }
  md += "\n" + std::string(kVerdictLegend) + "\n";
  return md;
}

namespace {

// What a person needs to see one cell again: the image it ran in, the commit it built.
std::string provenance(const CellResult& r) {
  std::string line = fmt::format("image `{}`", r.image.empty() ? "-" : r.image);
  if (!r.image_id.empty()) line += fmt::format(" (id `{}`)", r.image_id.substr(0, 19));
  line += fmt::format(" · commit `{}`", r.commit.empty() ? "not recorded" : r.commit);
  if (!r.started_at.empty()) line += fmt::format(" · started {}", r.started_at);
  if (!r.cache_key.empty()) line += fmt::format(" · cache key `{}`", r.cache_key);
  return line + "\n\n";
}

std::string cell_section(const CellResult& r) {
  const CellVerdict v = assess(r);
  std::string md = fmt::format("\n<a id=\"{}\"></a>\n\n### {} — {}\n\n", cell_anchor(r), cell_id(r),
                               verdict_symbol(v.verdict));
  if (!v.broken.empty()) md += fmt::format("- **broken**: {}\n", md_cell(fmt::format("{}", fmt::join(v.broken, "; ")), 2000));
  if (!v.limits.empty()) md += fmt::format("- **limits**: {}\n", md_cell(fmt::format("{}", fmt::join(v.limits, "; ")), 2000));
  if (!v.not_run.empty()) md += fmt::format("- **not run**: {}\n", md_cell(v.not_run, 500));
  md += fmt::format("- **as declared in matrix.yaml**: {}\n\n", v.as_declared ? "yes" : "‼ no (the run fails)");
  md += fmt::format("torch {} · torchvision {} · CUDA {} · engine {} · {:.0f} s\n\n", r.cell.value("torch", ""),
                    r.cell.value("torchvision", ""), r.cell.value("cuda", ""), r.engine.empty() ? "-" : r.engine,
                    r.seconds);
  md += provenance(r);
  md += fmt::format("Run this cell again: `opmatrix run --cell {}`\n\n", cell_id(r));
  md += "| check | status | message |\n|---|---|---|\n";
  for (const auto& c : r.checks)
    md += fmt::format("| {} | {} | {} |\n", md_cell(check_label(c)), to_string(c.status),
                      md_cell(c.expected_reason.empty() ? c.message : c.expected_reason + " — " + c.message));
  bool any = false;
  for (const auto& c : r.checks) {
    if (c.status == Status::pass || c.status == Status::skip) continue;
    if (!any) md += "\n**Every result that is not a pass**\n\n";
    any = true;
    const std::string log = log_of(r, c);
    if (c.diagnosis) {
      md += fmt::format("- **{}** ({}, {}): {}\n  - fix: {}\n  - reproduce: `{}`\n", check_label(c),
                        to_string(c.status), c.diagnosis->kind, md_cell(c.diagnosis->summary, 500),
                        md_cell(c.diagnosis->fix, 500), md_cell(c.diagnosis->repro, 600));
      if (!c.diagnosis->evidence.empty()) md += fmt::format("  - evidence: `{}`\n", md_cell(c.diagnosis->evidence, 500));
    } else {
      md += fmt::format("- **{}** ({}): {}\n", check_label(c), to_string(c.status), md_cell(c.message, 500));
    }
    if (!c.expected_reason.empty()) md += fmt::format("  - declared: {}\n", md_cell(c.expected_reason, 500));
    if (!log.empty()) md += fmt::format("  - log: [{}]({})\n", log, log);
  }
  return md;
}

}  // namespace

std::string cell_anchor(const CellResult& r) { return "cell-" + cell_id(r); }

std::string render_markdown(const ResultsSet& set, const std::string& details_page) {
  std::string md = fmt::format("# opmatrix compatibility report\n\n{}\n\n", provenance_line(set));
  // Each subject the results hold, our kernels first: its verdicts by torch x CUDA, then (for
  // another library) each of its ops. Nothing for a subject the results do not have.
  for (const auto& section : subject_sections(set)) {
    if (!section.subject.empty()) md += fmt::format("\n## {}\n\n", escape_md_cell(section.subject));
    md += compat_table_markdown(set, details_page, section.subject);
    if (section.ops) md += grid_markdown(*section.ops);
  }
  for (const auto& e : set.errors) md += fmt::format("\n> ⚠ {}\n", md_cell(e, 500));
  for (const auto& g : extra_tables(set)) md += grid_markdown(g);
  md += "\n## Cells\n";
  for (const auto& r : set.cells) md += cell_section(r);
  return md;
}

}  // namespace opmatrix
