#include "report/extra_tables.h"

#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "checks/registry.h"
#include "util/cuda_arch.h"
#include "util/escape.h"

namespace opmatrix {

const char* status_class(Status s) {
  if (s == Status::pass) return "pass";
  if (s == Status::xfail || s == Status::skip) return s == Status::skip ? "notrun" : "xfail";
  return "fail";
}

const char* status_symbol(Status s) {
  if (s == Status::pass) return "✔";
  if (s == Status::xfail) return "⚠";
  if (s == Status::skip) return "○";
  return "✘";
}

namespace {

Grid projects_table(const ResultsSet& set) {
  Grid g;
  g.id = "projects";
  g.title = "Other op libraries";
  g.caption = "Projects other than opmatrix's kernels/, checked with the same generic checks (docs/projects.md).";
  g.columns = {"cell", "project", "torch", "CUDA"};
  const std::vector<std::string> checks = project_columns();
  g.columns.insert(g.columns.end(), checks.begin(), checks.end());
  g.columns.push_back("verdict");
  for (const auto& r : set.cells) {
    if (!r.cell.contains("project")) continue;
    const auto& p = r.cell["project"];
    // A library without a dispatcher namespace (a pybind11 extension) is named without one.
    const std::string ns = p.value("namespace", "");
    std::vector<std::string> row = {cell_id(r),
                                    fmt::format("{} ({}{})", p.value("label", p.value("path", "")), p.value("kind", ""),
                                                ns.empty() ? ", no dispatcher namespace" : ", namespace " + ns),
                                    r.cell.value("torch", ""), r.cell.value("cuda", "")};
    std::vector<std::string> cls = {"", "", ""};
    for (const std::string& check : checks) {
      std::vector<Status> st;
      // torchvision's own ops have their grid (behaviour_tables.cpp): this row is the project's.
      for (const auto& c : r.checks)
        if (c.check == check && !is_torchvision_op(c.op)) st.push_back(c.status);
      const Status s = st.empty() ? Status::skip : worst_of(st);
      row.push_back(st.empty() ? "○" : fmt::format("{} {}", status_symbol(s), to_string(s)));
      cls.push_back(status_class(s));
    }
    const CellVerdict v = assess(r);
    row.push_back(verdict_line(v, kTableItems));
    cls.push_back(verdict_class(v.verdict));
    g.rows.push_back(row);
    g.classes.push_back(cls);
  }
  return g;
}

// One row per CUDA cell, one column per arch: a symbol per arch check of the registry (nvcc,
// NVRTC, library code), each ✔ ⚠ ✘ ○.
Grid arch_table(const ResultsSet& set) {
  Grid g;
  g.id = "archs";
  g.title = "GPU architectures";
  std::vector<std::string> captions, labels;
  for (const std::string& check : arch_columns()) {
    const CheckSpec* spec = find_check(check);
    captions.push_back(spec->report.caption);
    labels.push_back(spec->report.label);
  }
  g.caption = fmt::format("Per CUDA cell and declared arch: {}.", fmt::join(captions, " · "));
  g.legend = fmt::format("{} — ✔ yes · ⚠ expected no (declared) · ✘ no · ○ not checked", fmt::join(labels, " · "));
  std::set<std::string, decltype(&version_less)> archs(&version_less);
  for (const auto& r : set.cells)
    for (const auto& c : r.checks)
      if (!c.arch.empty()) archs.insert(c.arch);
  if (archs.empty()) return g;
  g.columns = {"cell"};
  for (const auto& a : archs) g.columns.push_back(sm_name(a));
  for (const auto& r : set.cells) {
    std::map<std::pair<std::string, std::string>, Status> found;  // (arch, check)
    for (const auto& c : r.checks)
      if (!c.arch.empty()) found[{c.arch, c.check}] = c.status;
    if (found.empty()) continue;
    std::vector<std::string> row = {cell_id(r)};
    std::vector<std::string> cls;
    for (const auto& a : archs) {
      std::string text;
      std::vector<Status> all;
      for (const std::string& check : arch_columns()) {
        auto it = found.find({a, check});
        text += (text.empty() ? "" : " ") + std::string(it == found.end() ? "○" : status_symbol(it->second));
        if (it != found.end()) all.push_back(it->second);
      }
      row.push_back(text);
      cls.push_back(all.empty() ? "notrun" : status_class(worst_of(all)));
    }
    g.rows.push_back(row);
    g.classes.push_back(cls);
  }
  return g;
}

const char* outcome_text(const std::string& o) {
  if (o == "loads") return "✔ loads";
  if (o == "undefined_symbol") return "✘ undefined symbol";
  if (o == "missing_library") return "✘ missing library";
  if (o == "not_registered") return "✘ not registered";
  if (o == "crash") return "✘ crash";
  if (o == "timeout") return "✘ timeout";
  return "✘ error";
}

// A build's row label: the cell, and for the stable-ABI build its target.
std::string build_label(const nlohmann::json& b) {
  const std::string cell = b.value("cell", "");
  if (b.value("namespace", "opmatrix") != "opmatrix")  // an upstream library as a subject
    return fmt::format("{} · {} {}", cell, b.value("namespace", ""), b.value("library", ""));
  return b.value("abi", "aten") == "stable" ? fmt::format("{} · stable ABI ≥ {}", cell, b.value("target", "?")) : cell;
}

// A build's key among the pairs: its cell, ABI and namespace.
std::string build_key(const nlohmann::json& j) {
  return j.value("cell", j.value("built_in", "")) + "/" + j.value("abi", "aten") + "/" + j.value("namespace", "opmatrix");
}

// One pair's entry: the load outcome, what the runtime's cases said of the foreign library, and
// for a stable-ABI build whether the promise held ("‼" where it did not).
std::string pair_text(const nlohmann::json& p) {
  const std::string outcome = p.value("outcome", "error");
  std::string text = outcome_text(outcome);
  if (p.contains("computes"))
    text += p["computes"] == "pass" ? fmt::format(" · ✔ computes ({} cases)", p["cases"].value("tests", 0))
                                    : std::string(" · ✘ computes wrong");
  if (p.contains("as_promised")) {
    if (!p["as_promised"].get<bool>()) return "‼ " + text + " (promised: " + p.value("promised", "") + ")";
    if (outcome != "loads") text += " (as promised)";
  }
  return text;
}

Grid cross_load_table(const nlohmann::json& x) {
  Grid g;
  g.id = "cross-load";
  g.title = "Load matrix (build × run)";
  g.caption = "The op library built in the row's cell, loaded (dlopen RTLD_NOW, then its ops' registrations) in the "
              "column's runtime, then run through that runtime's correctness cases: the \"extension built for one "
              "torch, run with another\" failure, measured. Rows \"stable ABI ≥ T\" are the same kernels built on "
              "the LibTorch stable ABI for target T: promised to load and compute in every torch ≥ T and to stop at "
              "an undefined symbol below it.";
  g.legend = "✔ loads and registers every op · ✔ computes: the runtime's correctness cases pass on it · ✘ undefined "
             "symbol / missing library / not registered / crash · (as promised): the stable ABI's boundary · ‼ the "
             "stable ABI's promise broken";
  g.notes_title = "why each failed load failed";
  if (!x.is_object() || !x.contains("pairs") || x["pairs"].empty()) return g;
  std::vector<std::pair<std::string, std::string>> builds;  // {cell + abi, label}
  std::vector<std::string> runs;
  for (const auto& b : x["builds"]) builds.emplace_back(build_key(b), build_label(b));
  for (const auto& r : x["runtimes"]) runs.push_back(r.value("cell", ""));
  std::map<std::pair<std::string, std::string>, const nlohmann::json*> pairs;
  for (const auto& p : x["pairs"])
    pairs[{build_key(p), p.value("run_in", "")}] = &p;
  int missing = 0;
  g.columns = {"built in ↓ / run in →"};
  g.columns.insert(g.columns.end(), runs.begin(), runs.end());
  for (const auto& [key, label] : builds) {
    std::vector<std::string> row = {label};
    std::vector<std::string> cls;
    for (const auto& r : runs) {
      auto it = pairs.find({key, r});
      if (it == pairs.end()) {
        row.push_back("○");
        cls.push_back("notrun");
        continue;
      }
      const nlohmann::json& p = *it->second;
      const std::string outcome = p.value("outcome", "error");
      const bool promised = p.contains("as_promised") && p["as_promised"].get<bool>();
      const bool good = p.contains("as_promised") ? promised : outcome == "loads" && p.value("computes", "pass") == "pass";
      row.push_back(pair_text(p));
      cls.push_back(good ? "pass" : "fail");
      // Missing libraries are the expected way two environments differ: counted, not listed.
      if (outcome == "missing_library" && !p.contains("as_promised")) ++missing;
      else if (!good || (outcome != "loads" && !promised))
        g.notes.push_back(fmt::format("{} in {}: {}", label, r, p.value("summary", "")));
    }
    g.rows.push_back(row);
    g.classes.push_back(cls);
  }
  if (missing > 0)
    g.notes.push_back(fmt::format("{} pairs: missing library — the build needs shared libraries (another torch's "
                                  "sonames, its CUDA libraries, or newer libstdc++ symbol versions) that the runtime "
                                  "lacks; each one's list is in results/_cross-load.json",
                                  missing));
  if (x.contains("runtimes_unavailable") && x["runtimes_unavailable"].is_array())
    for (const auto& u : x["runtimes_unavailable"]) g.notes.push_back("not run in " + u.get<std::string>());
  // The same matrix told from symbols alone (docs/stable-abi.md): how far that can be trusted.
  if (x.contains("prediction") && x["prediction"].is_object()) {
    const nlohmann::json& p = x["prediction"];
    g.notes.push_back(fmt::format("predicted from the libraries' symbols alone, without loading: agrees with {} of "
                                  "{} measured pairs",
                                  p.value("agree", 0), p.value("pairs", 0)));
    if (p.contains("disagree"))
      for (const auto& d : p["disagree"]) g.notes.push_back("prediction ≠ measurement: " + d.get<std::string>());
  }
  return g;
}

}  // namespace

std::vector<Grid> extra_tables(const ResultsSet& set) {
  std::vector<Grid> out;
  std::vector<Grid> all = {environments_table(set), projects_table(set)};
  for (Grid& g : behaviour_tables(set)) all.push_back(std::move(g));
  all.push_back(arch_table(set));
  all.push_back(cross_load_table(set.cross_load));
  for (Grid& g : all)
    if (!g.rows.empty()) out.push_back(std::move(g));
  return out;
}

std::string grid_markdown(const Grid& g) {
  std::string md = fmt::format("\n## {}\n\n{}\n\n|", g.title, g.caption);
  for (const auto& c : g.columns) md += " " + escape_md_cell(c) + " |";
  md += "\n|";
  for (std::size_t i = 0; i < g.columns.size(); ++i) md += "---|";
  md += "\n";
  for (const auto& row : g.rows) {
    md += "|";
    for (const auto& cell : row) md += " " + escape_md_cell(cell) + " |";
    md += "\n";
  }
  if (!g.legend.empty()) md += "\n" + g.legend + "\n";
  if (!g.notes.empty()) md += "\n";
  for (const auto& n : g.notes) md += "- " + escape_md_cell(n.substr(0, 400)) + "\n";
  return md;
}

std::string grid_html(const Grid& g) {
  std::string h = fmt::format("<h2 id=\"{}\">{}</h2>\n<div class=\"scroll\"><table class=\"grid\"><caption>{}</caption><thead><tr>",
                              escape_markup(g.id), escape_markup(g.title), escape_markup(g.caption));
  for (const auto& c : g.columns) h += "<th scope=\"col\">" + escape_markup(c) + "</th>";
  h += "</tr></thead><tbody>\n";
  for (std::size_t r = 0; r < g.rows.size(); ++r) {
    h += "<tr><th scope=\"row\">" + escape_markup(g.rows[r][0]) + "</th>";
    for (std::size_t c = 1; c < g.rows[r].size(); ++c) {
      const std::string cls = c - 1 < g.classes[r].size() ? g.classes[r][c - 1] : "";
      h += (cls.empty() ? "<td>" : "<td class=\"" + cls + "\">") + escape_markup(g.rows[r][c]) + "</td>";
    }
    h += "</tr>\n";
  }
  h += "</tbody></table></div>\n";
  if (!g.legend.empty()) h += "<p>" + escape_markup(g.legend) + "</p>\n";
  if (!g.notes.empty()) {
    h += "<details><summary>" + escape_markup(g.notes_title) + "</summary><ul>";
    for (const auto& n : g.notes) h += "<li>" + escape_markup(n.substr(0, 600)) + "</li>";
    h += "</ul></details>\n";
  }
  return h;
}

}  // namespace opmatrix
