#include <fmt/format.h>

#include "report/provenance.h"
#include "report/render.h"
#include "report/verdict.h"
#include "util/escape.h"
#include "version.h"

namespace opmatrix {

namespace {

std::string xml_escape(const std::string& s) { return escape_markup(s); }

}  // namespace

std::string render_junit(const ResultsSet& set) {
  std::string body;
  int total = 0, failures = 0, skipped = 0;
  for (const auto& r : set.cells) {
    int t = 0, f = 0, s = 0;
    std::string cases;
    for (const auto& c : r.checks) {
      ++t;
      cases += fmt::format("    <testcase classname=\"{}\" name=\"{}\" time=\"{:.3f}\">\n", xml_escape(cell_id(r)),
                           xml_escape(check_label(c)), c.seconds);
      const std::string detail = c.diagnosis ? fmt::format("{}\nfix: {}\nreproduce: {}", c.diagnosis->summary,
                                                           c.diagnosis->fix, c.diagnosis->repro)
                                             : c.message;
      if (c.status == Status::skip || c.status == Status::xfail) {
        ++s;
        const std::string why = c.status == Status::xfail ? "expected failure: " + c.expected_reason : c.message;
        cases += fmt::format("      <skipped message=\"{}\"/>\n", xml_escape(why));
      } else if (is_bad(c.status)) {
        ++f;
        cases += fmt::format("      <failure message=\"{}\" type=\"{}\">{}</failure>\n", xml_escape(c.message.substr(0, 500)),
                             to_string(c.status), xml_escape(detail));
      }
      cases += "    </testcase>\n";
    }
    // The cell's verdict (report/verdict.h) as a test of its own: broken is a failure when
    // matrix.yaml does not declare it, else skipped with its reasons; limits are named in its output.
    const CellVerdict v = assess(r);
    ++t;
    cases += fmt::format("    <testcase classname=\"{}\" name=\"verdict\" time=\"0\">\n", xml_escape(cell_id(r)));
    const std::string line = verdict_line(v, 20);
    if (v.verdict == Verdict::broken && !v.as_declared) {
      ++f;
      cases += fmt::format("      <failure message=\"{}\" type=\"broken\"/>\n", xml_escape(line));
    } else if (v.verdict == Verdict::broken || v.verdict == Verdict::not_run) {
      ++s;
      cases += fmt::format("      <skipped message=\"{}\"/>\n", xml_escape(line));
    } else {
      cases += fmt::format("      <system-out>{}</system-out>\n", xml_escape(line));
    }
    cases += "    </testcase>\n";
    body += fmt::format("  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"0\" skipped=\"{}\" time=\"{:.3f}\">\n"
                        "    <properties><property name=\"verdict\" value=\"{}\"/>"
                        "<property name=\"opmatrix_version\" value=\"{}\"/>"
                        "<property name=\"run_by_opmatrix_version\" value=\"{}\"/></properties>\n{}  </testsuite>\n",
                        xml_escape(cell_id(r)), t, f, s, r.seconds, xml_escape(line), kOpmatrixVersion,
                        xml_escape(r.harness_version), cases);
    total += t;
    failures += f;
    skipped += s;
  }
  return fmt::format("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"opmatrix\" tests=\"{}\" "
                     "failures=\"{}\" errors=\"0\" skipped=\"{}\">\n{}</testsuites>\n",
                     total, failures, skipped, body);
}

}  // namespace opmatrix
