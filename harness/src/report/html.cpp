#include <set>

#include <fmt/format.h>

#include "report/extra_tables.h"
#include "report/provenance.h"
#include "report/render.h"
#include "report/verdict.h"
#include "util/escape.h"

namespace opmatrix {

namespace {

std::string esc(const std::string& s) { return escape_markup(s); }

// Self-contained on purpose: the page is published as one file (GitHub Pages, artifacts).
constexpr const char* kStyle = R"(
:root{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;color:#1b1f24;background:#fff}
body{margin:0;padding:1rem;max-width:72rem;margin-inline:auto;line-height:1.45}
h1{font-size:1.5rem}h2{font-size:1.2rem;margin-top:2rem}
.scroll{overflow-x:auto}
table{border-collapse:collapse;margin:.5rem 0}
th,td{border:1px solid #c8ccd1;padding:.35rem .55rem;text-align:left;vertical-align:top}
caption{text-align:left;font-weight:600;padding:.3rem 0}
thead th{background:#f0f2f4}
.pass{background:#dcf5e3}.xfail,.limits{background:#fff4c7}.fail{background:#ffd9d6}.notrun{background:#eef0f2;color:#444}
td a{color:inherit}
.filters{display:flex;flex-wrap:wrap;gap:.75rem;margin:1rem 0}
.filters label{display:flex;flex-direction:column;font-size:.9rem}
details.cell{border:1px solid #c8ccd1;border-radius:6px;margin:.5rem 0;padding:.25rem .75rem}
details.cell>summary{cursor:pointer;font-weight:600;padding:.3rem 0}
.st-pass{color:#116329}.st-fail,.st-error,.st-crash,.st-timeout,.st-xpass{color:#a40e26;font-weight:600}
.st-xfail{color:#7a5b00}.st-skip{color:#555}
pre{white-space:pre-wrap;word-break:break-word;background:#f6f8fa;padding:.5rem;border-radius:4px;font-size:.85rem}
.diag{margin:.25rem 0 .5rem;font-size:.92rem}
@media (max-width:40rem){body{padding:.5rem}th,td{padding:.25rem .35rem;font-size:.9rem}}
)";

constexpr const char* kScript = R"(
(function(){
  var sel={op:document.getElementById('f-op'),check:document.getElementById('f-check'),status:document.getElementById('f-status')};
  function apply(){
    var rows=document.querySelectorAll('tr.check-row');
    rows.forEach(function(r){
      var ok=['op','check','status'].every(function(k){return !sel[k].value||r.dataset[k]===sel[k].value;});
      r.hidden=!ok;
    });
    document.querySelectorAll('details.cell').forEach(function(d){
      var shown=d.querySelectorAll('tr.check-row:not([hidden])').length;
      d.hidden=shown===0;
      d.querySelector('.count').textContent=shown+' check'+(shown===1?'':'s')+' shown';
    });
  }
  Object.keys(sel).forEach(function(k){sel[k].addEventListener('change',apply);});
  // ?op=nms&status=fail preselects filters, so a filtered view can be linked.
  var q=new URLSearchParams(location.search);
  Object.keys(sel).forEach(function(k){if(q.get(k))sel[k].value=q.get(k);});
  function openHash(){var d=document.getElementById(decodeURIComponent(location.hash.slice(1)));if(d&&d.tagName==='DETAILS'){d.open=true;d.scrollIntoView();}}
  window.addEventListener('hashchange',openHash);openHash();apply();
})();
)";

std::string options(const std::string& id, const std::string& label, const std::set<std::string>& values) {
  std::string out = fmt::format("<label for=\"{}\">{}<select id=\"{}\"><option value=\"\">all</option>", id, label, id);
  for (const auto& v : values) out += fmt::format("<option>{}</option>", esc(v));
  return out + "</select></label>";
}

// The torch × torchvision × CUDA table, each cell linking to its details below.
// `id`: the table's HTML id ("compat" for the report's first).
std::string compat_table_html(const ResultsSet& set, const std::string& subject, const std::string& id) {
  const CompatTable t = build_table(set, subject);
  if (t.rows.empty()) return "";
  std::string h = fmt::format("<div class=\"scroll\"><table id=\"{}\">", esc(id)) + "<caption>Do the ops build, load, register and compute "
                  "correctly? Rows: torch × torchvision; columns: CUDA version (cpu = CPU-only).</caption>\n<thead><tr>"
                  "<th scope=\"col\">torch</th><th scope=\"col\">torchvision</th>";
  for (const auto& c : t.columns) h += fmt::format("<th scope=\"col\">{}</th>", c == "cpu" ? "cpu" : "CUDA " + esc(c));
  h += "</tr></thead><tbody>\n";
  for (std::size_t r = 0; r < t.rows.size(); ++r) {
    h += fmt::format("<tr><th scope=\"row\">{}</th><td>{}</td>", esc(t.rows[r].first), esc(t.rows[r].second));
    for (std::size_t c = 0; c < t.columns.size(); ++c) {
      auto it = t.entries.find({r, c});
      if (it == t.entries.end()) {
        h += "<td></td>";
        continue;
      }
      h += fmt::format("<td class=\"{}\">", verdict_class(it->second.verdict));
      bool first = true;
      for (const auto* cell : it->second.cells) {
        h += fmt::format("{}<a href=\"#{}\" title=\"{}\">{}</a>", first ? "" : "<br>", esc(cell_anchor(*cell)),
                         esc(cell_id(*cell)), esc(verdict_line(assess(*cell), kTableItems)));
        first = false;
      }
      h += "</td>";
    }
    h += "</tr>\n";
  }
  return h + fmt::format("</tbody></table></div>\n<p>{}</p>\n", esc(kVerdictLegend));
}

// The op, check and status filters, offering the values the checks have.
std::string filters_html(const ResultsSet& set) {
  std::set<std::string> ops, checks, statuses;
  for (const auto& r : set.cells)
    for (const auto& c : r.checks) {
      if (!c.op.empty()) ops.insert(c.op);
      checks.insert(c.check);
      statuses.insert(to_string(c.status));
    }
  return "<section class=\"filters\" aria-label=\"filter the checks\">" + options("f-op", "op", ops) +
         options("f-check", "check", checks) + options("f-status", "status", statuses) + "</section>\n";
}

// One check's row: its message, and for a failure why, the fix, the log excerpt and the log.
std::string check_row_html(const CellResult& r, const CheckResult& c) {
  const std::string st = to_string(c.status);
  std::string h = fmt::format("<tr class=\"check-row\" data-op=\"{}\" data-check=\"{}\" data-status=\"{}\"><td>{}</td>"
                              "<td>{}</td><td class=\"st-{}\">{}</td><td>",
                              esc(c.op), esc(c.check), st, esc(c.op.empty() ? "—" : c.op),
                              esc(c.arch.empty() ? c.check : c.check + " " + c.arch), st, st);
  if (!c.expected_reason.empty()) h += "<div>expected: " + esc(c.expected_reason) + "</div>";
  h += "<div>" + esc(c.message.substr(0, 1500)) + "</div>";
  const bool passed = c.status == Status::pass || c.status == Status::skip;
  if (c.diagnosis && !passed) {
    h += fmt::format("<div class=\"diag\"><strong>why:</strong> {}<br><strong>fix:</strong> {}<br>"
                     "<strong>reproduce:</strong> <code>{}</code></div>",
                     esc(c.diagnosis->summary), esc(c.diagnosis->fix), esc(c.diagnosis->repro));
    if (!c.diagnosis->evidence.empty())
      h += "<pre aria-label=\"log excerpt\">" + esc(c.diagnosis->evidence.substr(0, 3000)) + "</pre>";
  }
  const std::string log = passed ? "" : log_of(r, c);
  if (!log.empty()) h += fmt::format("<div><a href=\"{}\">log</a></div>", esc(log));
  return h + "</td></tr>\n";
}

// One cell, folded: its verdict, versions, image and commit, and every check.
std::string cell_details_html(const CellResult& r) {
  const std::string id = cell_id(r);
  const CellVerdict v = assess(r);
  std::string h = fmt::format("<details class=\"cell\" id=\"{}\"><summary>{} — {} <small class=\"count\"></small>"
                              "</summary>\n", esc(cell_anchor(r)), esc(id), esc(verdict_line(v, 0)));
  h += "<ul class=\"verdict\">";
  if (!v.broken.empty()) h += "<li><strong>broken:</strong> " + esc(fmt::format("{}", fmt::join(v.broken, "; "))) + "</li>";
  if (!v.limits.empty()) h += "<li><strong>limits:</strong> " + esc(fmt::format("{}", fmt::join(v.limits, "; "))) + "</li>";
  if (!v.not_run.empty()) h += "<li><strong>not run:</strong> " + esc(v.not_run) + "</li>";
  h += fmt::format("<li><strong>as declared in matrix.yaml:</strong> {}</li></ul>\n",
                   v.as_declared ? "yes" : "‼ no (the run fails)");
  h += fmt::format("<p>torch {} · torchvision {} · CUDA {} · engine {} · {:.0f} s</p>\n", esc(r.cell.value("torch", "")),
                   esc(r.cell.value("torchvision", "")), esc(r.cell.value("cuda", "")),
                   esc(r.engine.empty() ? "-" : r.engine), r.seconds);
  h += fmt::format("<p>image <code>{}</code>{} · commit <code>{}</code> · started {} · run this cell again: "
                   "<code>opmatrix run --cell {}</code></p>\n",
                   esc(r.image.empty() ? "-" : r.image),
                   r.image_id.empty() ? "" : " (id <code>" + esc(r.image_id.substr(0, 19)) + "</code>)",
                   esc(r.commit.empty() ? "not recorded" : r.commit), esc(r.started_at), esc(id));
  h += "<div class=\"scroll\"><table class=\"checks\"><thead><tr><th scope=\"col\">op</th><th scope=\"col\">check</th>"
       "<th scope=\"col\">status</th><th scope=\"col\">details</th></tr></thead><tbody>\n";
  for (const auto& c : r.checks) h += check_row_html(r, c);
  return h + "</tbody></table></div></details>\n";
}

}  // namespace

std::string render_html(const ResultsSet& set) {
  std::string h = "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                  "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
                  "<title>opmatrix compatibility report</title><style>";
  h += kStyle;
  h += "</style></head><body><main>\n<h1>opmatrix compatibility report</h1>\n";
  h += fmt::format("<p class=\"provenance\">{}</p>\n", esc(provenance_line(set)));
  // Each subject the results hold, our kernels first: its verdicts, then (another library) its ops.
  std::size_t n = 0;
  for (const auto& section : subject_sections(set)) {
    if (!section.subject.empty()) h += fmt::format("<h2>{}</h2>\n", esc(section.subject));
    h += compat_table_html(set, section.subject, n++ == 0 ? "compat" : fmt::format("compat-{}", n));
    if (section.ops) h += grid_html(*section.ops);
  }
  for (const auto& e : set.errors) h += fmt::format("<p role=\"alert\">⚠ {}</p>\n", esc(e));
  for (const auto& g : extra_tables(set)) h += grid_html(g);
  h += "<h2>Cells</h2>\n" + filters_html(set);
  for (const auto& r : set.cells) h += cell_details_html(r);
  h += "</main><script>";
  h += kScript;
  h += "</script></body></html>\n";
  return h;
}

}  // namespace opmatrix
