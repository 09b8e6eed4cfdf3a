#include "diff/diff_render.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "report/provenance.h"
#include "util/escape.h"
#include "version.h"

namespace opmatrix {

namespace {

// GitHub truncates a step summary at 1 MiB; the JSON keeps every row.
constexpr std::size_t kMaxRows = 200;

std::string md_cell(const std::string& s, std::size_t limit = 300) {
  return escape_md_cell(s.substr(0, limit)) + (s.size() > limit ? " …" : "");
}

std::string status_or_dash(const std::optional<Status>& s) { return s ? to_string(*s) : "—"; }

std::string verdict_text(const std::string& verdict, Status status) {
  return fmt::format("{} ({})", md_cell(verdict, 600), to_string(status));
}

std::string where(const ResultChange& c) {
  std::string s;
  auto add = [&](const std::string& part) {
    if (part.empty()) return;
    s += (s.empty() ? "" : " · ") + part;
  };
  add(c.subtest);
  if (!c.arch.empty()) add("arch " + c.arch);
  if (!c.sample.empty()) add("`" + md_cell(c.sample, 120) + "`");
  return s;
}

std::string diagnosis_text(const Diagnosis& d) {
  std::string s = fmt::format("**{}**: {}", md_cell(d.kind, 60), md_cell(d.summary));
  if (!d.fix.empty()) s += " — fix: " + md_cell(d.fix);
  return s;
}

// HEAD's diagnosis; for a result that is no longer bad, what BASE said it was.
std::string explanation(const ResultChange& c) {
  if (c.head_diagnosis && c.head && is_bad(*c.head)) return diagnosis_text(*c.head_diagnosis);
  if (c.base_diagnosis && c.base && is_bad(*c.base) && c.kind != ResultChange::Kind::diagnosis)
    return md_cell(c.why) + "; was " + diagnosis_text(*c.base_diagnosis);
  if (c.head_diagnosis) return diagnosis_text(*c.head_diagnosis);
  return md_cell(c.why) + (c.head_message.empty() || c.why.find(c.head_message) != std::string::npos
                               ? ""
                               : " — " + md_cell(c.head_message, 200));
}

std::string results_table(const std::vector<const ResultChange*>& rows, const char* last_column) {
  std::string md = fmt::format("| cell | op | check | sub-test / arch | base → head | {} |\n|---|---|---|---|---|---|\n",
                               last_column);
  std::size_t n = 0;
  for (const auto* c : rows) {
    if (++n > kMaxRows) {
      md += fmt::format("\n… and {} more (`--format json` lists every one).\n", rows.size() - kMaxRows);
      break;
    }
    md += fmt::format("| {} | {} | {} | {} | {} → {} | {} |\n", md_cell(c->cell), md_cell(c->op), md_cell(c->check),
                      where(*c), status_or_dash(c->base), status_or_dash(c->head), explanation(*c));
  }
  return md;
}

std::vector<const ResultChange*> pick(const std::vector<ResultChange>& from, bool (*keep)(const ResultChange&)) {
  std::vector<const ResultChange*> out;
  for (const auto& c : from)
    if (!keep || keep(c)) out.push_back(&c);
  return out;
}

std::vector<const ResultChange*> all_of(const std::vector<ResultChange>& from) { return pick(from, nullptr); }

bool is_diagnosis(const ResultChange& c) { return c.kind == ResultChange::Kind::diagnosis; }
bool is_status(const ResultChange& c) { return c.kind == ResultChange::Kind::status; }
bool is_added_xfail(const ResultChange& c) { return c.kind == ResultChange::Kind::added && c.head == Status::xfail; }
bool is_added_not_xfail(const ResultChange& c) { return c.kind == ResultChange::Kind::added && c.head != Status::xfail; }

// "\n### TITLE (COUNT)\n\nINTRO": a section's heading and what its rows are.
std::string heading(const char* title, const std::string& count, const char* intro) {
  return fmt::format("\n### {} ({})\n\n{}", title, count, intro);
}

// A table of result rows under a heading; nothing where there are no rows.
std::string results_section(const std::vector<const ResultChange*>& rows, const char* title, const char* intro,
                            const char* last_column) {
  if (rows.empty()) return "";
  return heading(title, std::to_string(rows.size()), intro) + results_table(rows, last_column);
}

// Cells on one side only, with that side's verdict; nothing where there are none.
std::string cells_section(const std::vector<CellOnOneSide>& cells, const char* title, const char* intro,
                          const char* side) {
  if (cells.empty()) return "";
  std::string md = heading(title, std::to_string(cells.size()), intro) +
                   fmt::format("| cell | {}'s verdict |\n|---|---|\n", side);
  for (const auto& c : cells) md += fmt::format("| {} | {} |\n", md_cell(c.cell), verdict_text(c.verdict, c.status));
  return md;
}

std::string verdicts_section(const std::vector<VerdictChange>& verdicts, std::size_t worse) {
  if (verdicts.empty()) return "";
  std::string md = heading("Cell verdicts", fmt::format("{} changed, {} no longer meet their expectations",
                                                        verdicts.size(), worse),
                           "| cell | BASE | HEAD | |\n|---|---|---|---|\n");
  for (const auto& v : verdicts)
    md += fmt::format("| {} | {} | {} | {} |\n", md_cell(v.cell), verdict_text(v.base_verdict, v.base_status),
                      verdict_text(v.head_verdict, v.head_status),
                      v.regressed                     ? "✘ no longer meets its expectations"
                      : !v.base_meets && v.head_meets ? "✔ meets its expectations now"
                      : v.head_meets                  ? "still meets its expectations"
                                                      : "still does not meet its expectations");
  return md;
}

// The summary line, and which of the three rules made it a regression: "0 regressed" with
// exit 1 puzzles otherwise.
std::string headline(const Diff& d, std::size_t worse) {
  std::vector<std::string> reasons;
  auto reason = [&](std::size_t n, const char* one, const char* many) {
    if (n) reasons.push_back(fmt::format("{} {}", n, n == 1 ? one : many));
  };
  reason(d.regressed.size(), "result regressed", "results regressed");
  reason(worse, "cell no longer meets its expectations", "cells no longer meet their expectations");
  reason(d.cells_removed.size(), "cell missing from HEAD", "cells missing from HEAD");
  return fmt::format("**{}** ({} cell{}, {} results compared)\n\n{}\n", diff_summary(d), d.cells_compared,
                     d.cells_compared == 1 ? "" : "s", d.results_compared,
                     reasons.empty() ? std::string("Nothing regressed.")
                                     : fmt::format("**Regressed**: {}.", fmt::join(reasons, ", ")));
}

std::size_t count_kind(const Diff& d, ResultChange::Kind k) {
  std::size_t n = 0;
  for (const auto& c : d.changed) n += c.kind == k;
  return n;
}

nlohmann::json diagnosis_json(const std::optional<Diagnosis>& d) {
  if (!d) return nullptr;
  return {{"kind", d->kind}, {"summary", d->summary}, {"fix", d->fix}, {"repro", d->repro}, {"evidence", d->evidence}};
}

nlohmann::json status_json(const std::optional<Status>& s) {
  if (!s) return nullptr;
  return to_string(*s);
}

nlohmann::json change_json(const ResultChange& c) {
  return {{"cell", c.cell},
          {"op", c.op},
          {"check", c.check},
          {"arch", c.arch},
          {"subtest", c.subtest},
          {"sample", c.sample},
          {"kind", to_string(c.kind)},
          {"base", status_json(c.base)},
          {"head", status_json(c.head)},
          {"base_expected_reason", c.base_expected_reason},
          {"head_expected_reason", c.head_expected_reason},
          {"why", c.why},
          {"message", c.head_message},
          {"base_diagnosis", diagnosis_json(c.base_diagnosis)},
          {"head_diagnosis", diagnosis_json(c.head_diagnosis)}};
}

}  // namespace

std::string diff_summary(const Diff& d) {
  if (d.empty()) return "no differences";
  const std::size_t added = count_kind(d, ResultChange::Kind::added);
  return fmt::format("{} regressed, {} fixed, {} changed{}, cells +{} −{}", d.regressed.size(), d.fixed.size(),
                     d.changed.size(), added ? fmt::format(" ({} of them new results)", added) : "",
                     d.cells_added.size(), d.cells_removed.size());
}

std::string render_diff_markdown(const Diff& d, const std::string& base, const std::string& head) {
  std::string md = fmt::format("## opmatrix diff\n\nBASE `{}` → HEAD `{}`\n\n", md_cell(base), md_cell(head));
  if (d.base_run_by != d.head_run_by)
    md += fmt::format("> Run by different opmatrix versions (BASE: {}; HEAD: {}): a change below may be opmatrix's "
                      "own, a new check or rule, not your library's. CHANGELOG.md says what changed in verdicts "
                      "between versions.\n\n",
                      runs_text(d.base_run_by), runs_text(d.head_run_by));
  if (d.empty()) {
    md += fmt::format("**No differences**: {} cells, {} results compared.\n", d.cells_compared, d.results_compared);
    return md;
  }
  std::size_t worse = 0;
  for (const auto& v : d.verdicts) worse += v.regressed;
  md += headline(d, worse);
  md += results_section(all_of(d.regressed), "✘ Regressed",
                        "Each one passed, was an expected failure, was skipped or was not there in BASE, and fails "
                        "in HEAD.\n\n",
                        "HEAD's diagnosis");
  md += cells_section(d.cells_removed, "✘ Cells missing from HEAD",
                      "A regression: BASE checked them and HEAD did not (dropped from the matrix, not run, or its "
                      "results file not written).\n\n",
                      "BASE");
  md += verdicts_section(d.verdicts, worse);
  md += results_section(all_of(d.fixed), "✔ Fixed", "", "what it was");
  md += results_section(pick(d.changed, is_diagnosis), "Still failing, differently", "", "HEAD's diagnosis");
  md += results_section(pick(d.changed, is_status), "Other status changes",
                        "Not regressions, but read them: a result that is no longer checked can no longer fail.\n\n",
                        "what it means");
  // A new expected failure is what turns a cell's verdict from pass to xfail: shown, not folded.
  md += results_section(pick(d.changed, is_added_xfail), "New expected failures",
                        "New in HEAD and failing, as an `expect` entry says they will.\n\n", "diagnosis");
  const auto added = pick(d.changed, is_added_not_xfail);
  if (!added.empty())
    md += fmt::format("\n<details><summary>New results that pass or skip ({})</summary>\n\n", added.size()) +
          results_table(added, "message") + "\n</details>\n";
  md += cells_section(d.cells_added, "New cells", "", "HEAD");
  return md;
}

std::string render_diff_json(const Diff& d, const std::string& base, const std::string& head) {
  nlohmann::json j;
  j["schema"] = "opmatrix-diff";
  j["schema_version"] = 1;
  j["opmatrix_version"] = kOpmatrixVersion;  // whose verdict rules compared the two
  j["base"] = base;
  j["head"] = head;
  j["summary"] = diff_summary(d);
  j["has_regressions"] = has_regressions(d);
  j["cells_compared"] = d.cells_compared;
  j["results_compared"] = d.results_compared;
  j["base_run_by"] = d.base_run_by;
  j["head_run_by"] = d.head_run_by;
  for (const char* key : {"regressed", "fixed", "changed"}) j[key] = nlohmann::json::array();
  for (const auto& c : d.regressed) j["regressed"].push_back(change_json(c));
  for (const auto& c : d.fixed) j["fixed"].push_back(change_json(c));
  for (const auto& c : d.changed) j["changed"].push_back(change_json(c));
  j["cells_added"] = nlohmann::json::array();
  for (const auto& c : d.cells_added)
    j["cells_added"].push_back(
        {{"cell", c.cell}, {"status", to_string(c.status)}, {"meets_expectations", c.meets_expectations},
         {"verdict", c.verdict}});
  j["cells_removed"] = nlohmann::json::array();
  for (const auto& c : d.cells_removed)
    j["cells_removed"].push_back(
        {{"cell", c.cell}, {"status", to_string(c.status)}, {"meets_expectations", c.meets_expectations},
         {"verdict", c.verdict}});
  j["verdicts"] = nlohmann::json::array();
  for (const auto& v : d.verdicts)
    j["verdicts"].push_back({{"cell", v.cell},
                             {"base", {{"status", to_string(v.base_status)}, {"meets_expectations", v.base_meets},
                                       {"verdict", v.base_verdict}}},
                             {"head", {{"status", to_string(v.head_status)}, {"meets_expectations", v.head_meets},
                                       {"verdict", v.head_verdict}}},
                             {"regressed", v.regressed}});
  return j.dump(2) + "\n";
}

}  // namespace opmatrix
