#include <fmt/format.h>

#include "report/render.h"
#include "util/escape.h"

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
    body += fmt::format("  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"0\" skipped=\"{}\" time=\"{:.3f}\">\n{}  </testsuite>\n",
                        xml_escape(cell_id(r)), t, f, s, r.seconds, cases);
    total += t;
    failures += f;
    skipped += s;
  }
  return fmt::format("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"opmatrix\" tests=\"{}\" "
                     "failures=\"{}\" errors=\"0\" skipped=\"{}\">\n{}</testsuites>\n",
                     total, failures, skipped, body);
}

}  // namespace opmatrix
