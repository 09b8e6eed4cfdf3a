#include "atlas/atlas_report.h"

#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "results/cell_result.h"
#include "util/escape.h"
#include "version.h"

namespace opmatrix {

namespace {

// The declared side of a pair: what the release asks for, and what pip does about it. The
// `wheel` check's subtest `tag` (a module this Python cannot import) is measured, not declared.
const std::set<std::string> kDeclaredChecks = {"wheel", "install-plan"};

bool measured_subtest(const CheckResult& c) { return c.subtest == "tag"; }

bool declared_side(const CheckResult& c) { return kDeclaredChecks.count(c.check) > 0 && !measured_subtest(c); }

// The check's first result: of a declared check, its declared side.
const CheckResult* find_check(const CellResult& r, const std::string& check) {
  for (const auto& c : r.checks)
    if (c.check == check && (!kDeclaredChecks.count(check) || declared_side(c))) return &c;
  return nullptr;
}

Declared declared_of(const CheckResult* wheel) {
  if (!wheel) return Declared::unknown;
  if (wheel->status == Status::fail || wheel->status == Status::xfail) return Declared::refuses;
  if (wheel->message.find("declares no torch requirement") != std::string::npos) return Declared::says_nothing;
  return wheel->status == Status::pass || wheel->status == Status::xpass ? Declared::accepts : Declared::unknown;
}

AtlasPair pair_of(const std::string& library, const std::string& release, const std::string& runtime,
                  const std::map<std::string, const CellResult*>& by_id) {
  AtlasPair p;
  p.id = atlas_pair_id(library, release, runtime);
  p.library = library;
  p.release = release;
  p.runtime = runtime;
  auto it = by_id.find(p.id);
  if (it == by_id.end()) {
    p.measured.verdict = Verdict::not_run;
    p.measured.not_run = "not measured yet";
    return p;
  }
  p.result = it->second;
  const CheckResult* wheel = find_check(*p.result, "wheel");
  p.declared = declared_of(wheel);
  if (wheel) p.declared_text = wheel->message;
  if (const CheckResult* plan = find_check(*p.result, "install-plan")) p.pip_text = plan->message;
  if (const CheckResult* fetch = find_check(*p.result, "fetch");
      fetch && fetch->diagnosis && fetch->diagnosis->kind == "no_compatible_wheel") {
    p.no_wheel = true;
    p.measured.verdict = Verdict::not_run;
    p.measured.not_run = fetch->message;
    return p;
  }
  CellResult measured = *p.result;
  measured.checks.erase(std::remove_if(measured.checks.begin(), measured.checks.end(),
                                       [](const CheckResult& c) { return declared_side(c); }),
                        measured.checks.end());
  p.measured = assess(measured);
  p.measured.as_declared = true;  // a pair declares no expectations: what it measures is the finding
  return p;
}

// "✔" of "✔ works"; a release with no wheel for the runtime's Python or platform has its own.
constexpr const char* kNoWheelGlyph = "∅";
std::string glyph(const AtlasPair& p) {
  if (p.no_wheel) return kNoWheelGlyph;
  const std::string s = verdict_symbol(p.measured.verdict);
  return s.substr(0, s.find(' '));
}

std::string page_of(const std::string& library) { return library + ".md"; }
std::string evidence_of(const std::string& library) { return "evidence/" + library + ".json"; }

std::string entry_link(const AtlasPair& p, bool from_index) {
  const std::string symbol = glyph(p) + (disagreement(p).empty() ? "" : "≠");
  return fmt::format("[{}]({}#{})", symbol, from_index ? page_of(p.library) : "", p.id);
}

const char* kLegend =
    "✔ works · ◐ works with limits · ✘ broken · ∅ no wheel for the runtime's Python or platform (pip has nothing to "
    "install: itself a finding) · ○ not measured yet, or kept from it by the infrastructure (its section says "
    "why) · ≠ the release's own metadata says otherwise (see its page). Columns: the runtime's torch, and where it "
    "comes from (a Debian suite, or PyPI with its CUDA)";

// A runtime's column, short: "2.6 trixie", "2.0 cu11.7" (its full cell id is in each pair's section).
std::string runtime_label(const Atlas& a, const std::string& runtime) {
  for (const auto& c : a.pairs.cells) {
    if (c.id.size() < runtime.size() + 2 || c.id.compare(c.id.size() - runtime.size() - 2, std::string::npos, "--" + runtime) != 0)
      continue;
    const std::string minor = c.torch.substr(0, c.torch.find('.', c.torch.find('.') + 1));
    // A PyPI torch is told by its CUDA (its image's suite is only the OS under it); Debian's by suite.
    if (c.image.builtin != "pypi")
      for (const auto& [key, value] : c.image.args)
        if (key == "SUITE") return minor + " " + value;
    return minor + (c.has_cuda() ? " cu" + c.cuda : " cpu");
  }
  return runtime;
}

std::string runtime_header(const Atlas& a) {
  std::string head = "| |", rule = "|---|";
  for (const auto& r : a.runtimes) {
    head += fmt::format(" {} |", runtime_label(a, r));
    rule += "---|";
  }
  return head + "\n" + rule + "\n";
}

// Which opmatrix measured the pairs shown (a version's judgement can differ from the next one's):
// " by opmatrix 0.5.0 (120) and 0.6.0 (51)".
std::string run_by(const AtlasView& view) {
  std::map<std::string, int> versions;
  for (const auto& p : view.pairs)
    if (p.measured_here()) ++versions[p.result->harness_version.empty() ? "?" : p.result->harness_version];
  std::vector<std::string> parts;
  for (const auto& [version, n] : versions) parts.push_back(fmt::format("{} ({})", version, n));
  if (parts.empty()) return "";
  const std::string last = parts.back();
  parts.pop_back();
  return " by opmatrix " + (parts.empty() ? last : fmt::format("{} and {}", fmt::join(parts, ", "), last));
}

std::string render_index(const AtlasView& view) {
  const Atlas& a = *view.atlas;
  std::size_t measured = 0;
  for (const auto& p : view.pairs) measured += p.measured_here() ? 1 : 0;
  std::string out = "# The atlas: op libraries x torch, measured\n\n";
  out += fmt::format(
      "Each library's newest release in the atlas, installed from its PyPI wheel next to each torch runtime (a fresh "
      "container per pair): whether pip would take it, whether its compiled libraries load, whether its import "
      "loads its own extension, and which of its ops register. {} libraries, {} pairs, {} measured{}. Rendered by "
      "opmatrix {} (`opmatrix atlas report`).\n\n{}\n\n",
      a.libraries.size(), view.pairs.size(), measured, run_by(view), kOpmatrixVersion, kLegend);
  out += runtime_header(a);
  for (const auto& lib : a.libraries) {
    const std::string& newest = lib.releases.back();
    out += fmt::format("| [{}]({}) {} |", lib.name, page_of(lib.name), newest);
    for (const auto& r : a.runtimes) out += " " + entry_link(*view.find(lib.name, newest, r), true) + " |";
    out += "\n";
  }
  return out;
}

std::string declared_words(const AtlasPair& p) {
  switch (p.declared) {
    case Declared::accepts: return "accepts this torch";
    case Declared::refuses: return "asks for another torch";
    case Declared::says_nothing: return "names no torch";
    case Declared::unknown: break;
  }
  return "not read";
}

std::string pair_section(const AtlasPair& p) {
  std::string out = fmt::format("<a id=\"{}\"></a>\n### {} {} in {}\n\n", p.id, p.library, p.release, p.runtime);
  out += fmt::format("- measured: {}\n", escape_md_cell(verdict_line(p.measured, 4)));
  if (!p.pip_text.empty()) out += fmt::format("- pip: {}\n", escape_md_cell(p.pip_text));
  if (!p.declared_text.empty()) out += fmt::format("- its metadata: {}\n", escape_md_cell(p.declared_text));
  if (const std::string d = disagreement(p); !d.empty()) out += fmt::format("- ≠ {}\n", escape_md_cell(d));
  if (p.result)
    out += fmt::format("- evidence: every check of the pair, with its diagnosis and the command that reproduces it, in "
                       "[{0}]({0}) (cell `{1}`; the run's logs: `logs/{1}/` of its results folder)\n",
                       evidence_of(p.library), p.id);
  return out + "\n";
}

std::string render_library(const AtlasView& view, const AtlasLibrary& lib) {
  const Atlas& a = *view.atlas;
  std::string out = fmt::format("# {} x torch\n\n", lib.name);
  if (!lib.notes.empty()) out += lib.notes + "\n\n";
  out += fmt::format("[The atlas](index.md) · import `{}` · namespace `{}`\n\n{}\n\n",
                     lib.import_module.empty() ? "(none)" : lib.import_module, lib.ns.empty() ? "(none)" : lib.ns,
                     kLegend);
  out += runtime_header(a);
  for (auto rel = lib.releases.rbegin(); rel != lib.releases.rend(); ++rel) {
    out += fmt::format("| {} |", *rel);
    for (const auto& r : a.runtimes) out += " " + entry_link(*view.find(lib.name, *rel, r), false) + " |";
    out += "\n";
  }
  std::vector<std::string> disagreements;
  for (const auto& p : view.pairs)
    if (p.library == lib.name)
      if (std::string d = disagreement(p); !d.empty()) disagreements.push_back(fmt::format("[{} in {}](#{}): {}", p.release, p.runtime, p.id, d));
  out += "\n## Declared and measured\n\n";
  if (disagreements.empty()) out += "Every measured pair agrees with what the release's metadata declares.\n";
  for (const auto& d : disagreements) out += "- " + d + "\n";
  out += "\n## Each pair\n\n";
  for (const auto& r : a.runtimes)
    for (auto rel = lib.releases.rbegin(); rel != lib.releases.rend(); ++rel) out += pair_section(*view.find(lib.name, *rel, r));
  return out;
}

// One self-contained page (no external resources): the index, then each library's table and
// pairs; a pair's details open when its link is followed (#PAIR-ID).
const char* kHtmlHead = R"(<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>The atlas: op libraries x torch</title>
<style>
body{font-family:system-ui,sans-serif;margin:1.5em;max-width:90em}
table{border-collapse:collapse;margin:.5em 0 1.5em}th,td{border:1px solid #ccc;padding:.2em .5em;text-align:center}
th[scope=row]{text-align:left}td a{text-decoration:none}
.pass{background:#e6f4e6}.limits{background:#fff6d6}.fail{background:#fde2e2}.notrun{background:#f0f0f0}
details.pair{margin:.2em 0 .2em 1em}details.pair[open]{background:#fafafa}
</style></head><body>
)";

const char* kHtmlScript = R"(<script>
function openPair(){var id=decodeURIComponent(location.hash.slice(1));var d=id&&document.getElementById(id);
if(d&&d.tagName==='DETAILS'){d.open=true;d.scrollIntoView();}}
window.addEventListener('hashchange',openPair);openPair();
</script></body></html>
)";

std::string html_entry(const AtlasPair& p) {
  const std::string mark = disagreement(p).empty() ? "" : "≠";
  return fmt::format("<td class=\"{}\"><a href=\"#{}\" title=\"{}\">{}{}</a></td>", verdict_class(p.measured.verdict),
                     escape_markup(p.id), escape_markup(verdict_line(p.measured, 1)), glyph(p), mark);
}

std::string html_header(const Atlas& a) {
  std::string out = "<tr><th></th>";
  for (const auto& r : a.runtimes)
    out += fmt::format("<th scope=\"col\" title=\"{}\">{}</th>", escape_markup(r), escape_markup(runtime_label(a, r)));
  return out + "</tr>\n";
}

std::string html_pair(const AtlasPair& p) {
  std::string out = fmt::format("<details class=\"pair\" id=\"{}\"><summary>{} {} in {}: {}</summary><ul>\n",
                                escape_markup(p.id), escape_markup(p.library), escape_markup(p.release),
                                escape_markup(p.runtime), escape_markup(verdict_symbol(p.measured.verdict)));
  out += "<li>measured: " + escape_markup(verdict_line(p.measured, 6)) + "</li>\n";
  if (!p.pip_text.empty()) out += "<li>pip: " + escape_markup(p.pip_text) + "</li>\n";
  if (!p.declared_text.empty()) out += "<li>its metadata: " + escape_markup(p.declared_text) + "</li>\n";
  if (const std::string d = disagreement(p); !d.empty()) out += "<li>≠ " + escape_markup(d) + "</li>\n";
  if (p.result)
    out += fmt::format("<li>evidence: every check, its diagnosis and reproduction command, in <a href=\"{1}\">"
                       "{1}</a> (cell <code>{0}</code>; the run's logs: <code>logs/{0}/</code>)</li>\n",
                       escape_markup(p.id), escape_markup(evidence_of(p.library)));
  return out + "</ul></details>\n";
}

std::string render_html(const AtlasView& view) {
  const Atlas& a = *view.atlas;
  std::string out = kHtmlHead;
  out += "<h1>The atlas: op libraries × torch, measured</h1>\n<p>" + escape_markup(kLegend) + "</p>\n";
  out += "<table id=\"atlas\">\n" + html_header(a);
  for (const auto& lib : a.libraries) {
    const std::string& newest = lib.releases.back();
    out += fmt::format("<tr><th scope=\"row\"><a href=\"#lib-{0}\">{0}</a> {1}</th>", escape_markup(lib.name),
                       escape_markup(newest));
    for (const auto& r : a.runtimes) out += html_entry(*view.find(lib.name, newest, r));
    out += "</tr>\n";
  }
  out += "</table>\n";
  for (const auto& lib : a.libraries) {
    out += fmt::format("<section id=\"lib-{0}\"><h2>{0}</h2>\n", escape_markup(lib.name));
    if (!lib.notes.empty()) out += "<p>" + escape_markup(lib.notes) + "</p>\n";
    out += "<table>\n" + html_header(a);
    for (auto rel = lib.releases.rbegin(); rel != lib.releases.rend(); ++rel) {
      out += "<tr><th scope=\"row\">" + escape_markup(*rel) + "</th>";
      for (const auto& r : a.runtimes) out += html_entry(*view.find(lib.name, *rel, r));
      out += "</tr>\n";
    }
    out += "</table>\n";
    for (const auto& r : a.runtimes)
      for (auto rel = lib.releases.rbegin(); rel != lib.releases.rend(); ++rel) out += html_pair(*view.find(lib.name, *rel, r));
    out += "</section>\n";
  }
  return out + kHtmlScript;
}

// A report file (report/results_set.h reads it back), so `opmatrix diff` compares two atlases.
// Schema 2: the cells (each pair's whole result: every check, its diagnosis and the command that
// reproduces it, 20-80 KB a pair) are in one evidence file per library, each itself a schema-1
// report; atlas.json names them. One file of the whole atlas would be past 100 MB.
nlohmann::json report_head(int schema_version, const std::string& kind) {
  return {{"schema", "opmatrix-report"}, {"schema_version", schema_version}, {"kind", kind},
          {"opmatrix_version", kOpmatrixVersion}};
}

nlohmann::json render_json(const AtlasView& view, const ResultsSet& results) {
  nlohmann::json j = report_head(2, "atlas");
  j["runtimes"] = view.atlas->runtimes;
  j["pairs"] = nlohmann::json::array();
  for (const auto& p : view.pairs) {
    nlohmann::json e = {{"id", p.id},           {"library", p.library},
                        {"release", p.release}, {"runtime", p.runtime},
                        {"measured", to_json(p.measured)}, {"declared", declared_words(p)},
                        {"pip", p.pip_text},    {"no_wheel", p.no_wheel}};
    if (const std::string d = disagreement(p); !d.empty()) e["disagreement"] = d;
    j["pairs"].push_back(e);
  }
  j["cells_files"] = nlohmann::json::array();
  for (const auto& lib : view.atlas->libraries) j["cells_files"].push_back(evidence_of(lib.name));
  j["errors"] = results.errors;
  return j;
}

nlohmann::json render_evidence(const AtlasView& view, const std::string& library) {
  nlohmann::json j = report_head(1, "atlas-evidence");
  j["library"] = library;
  j["cells"] = nlohmann::json::array();
  for (const auto& p : view.pairs)
    if (p.library == library && p.result) j["cells"].push_back(to_json(*p.result));
  return j;
}

}  // namespace

const AtlasPair* AtlasView::find(const std::string& library, const std::string& release,
                                 const std::string& runtime) const {
  for (const auto& p : pairs)
    if (p.library == library && p.release == release && p.runtime == runtime) return &p;
  return nullptr;
}

AtlasView view_atlas(const Atlas& atlas, const ResultsSet& results) {
  std::map<std::string, const CellResult*> by_id;
  for (const auto& r : results.cells) by_id[cell_id(r)] = &r;
  AtlasView view;
  view.atlas = &atlas;
  for (const auto& runtime : atlas.runtimes)
    for (const auto& lib : atlas.libraries)
      for (const auto& release : lib.releases) view.pairs.push_back(pair_of(lib.name, release, runtime, by_id));
  return view;
}

std::string disagreement(const AtlasPair& p) {
  const Verdict v = p.measured.verdict;
  const bool works = v == Verdict::works || v == Verdict::works_with_limits;
  if (p.declared == Declared::refuses && works)
    return "its metadata asks for another torch, yet it works here (" + p.declared_text + ")";
  if (p.declared == Declared::accepts && v == Verdict::broken)
    return "its metadata accepts this torch, yet it is broken here (" + p.declared_text + ")";
  if (p.declared == Declared::says_nothing && v == Verdict::broken)
    return "its metadata names no torch, yet it is broken here";
  return "";
}

std::map<std::string, std::string> render_atlas(const AtlasView& view, const ResultsSet& results) {
  std::map<std::string, std::string> files;
  files["index.md"] = render_index(view);
  for (const auto& lib : view.atlas->libraries) files[page_of(lib.name)] = render_library(view, lib);
  for (const auto& lib : view.atlas->libraries)
    files[evidence_of(lib.name)] = render_evidence(view, lib.name).dump(1) + "\n";
  files["atlas.json"] = render_json(view, results).dump(1) + "\n";
  files["index.html"] = render_html(view);
  return files;
}

}  // namespace opmatrix
