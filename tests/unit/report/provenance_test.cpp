// Every rendered report names the opmatrix that judged it and the ones that ran its cells.
#include <gtest/gtest.h>

#include "report/provenance.h"
#include "report/render.h"
#include "version.h"

namespace opmatrix {

namespace {
CellResult run_by(const std::string& id, const std::string& version) {
  CellResult r;
  r.cell = {{"id", id}};
  r.harness_version = version;
  return r;
}
}  // namespace

TEST(Provenance, OneVersionThatIsThisOneSaysSo) {
  ResultsSet set;
  set.cells = {run_by("a", kOpmatrixVersion), run_by("b", kOpmatrixVersion)};
  EXPECT_EQ(provenance_line(set), std::string("Verdicts by opmatrix ") + kOpmatrixVersion + "; every cell run by it.");
}

TEST(Provenance, OtherVersionsAreCountedAndPointToTheChangelog) {
  ResultsSet set;
  set.cells = {run_by("a", "0.0.9"), run_by("b", kOpmatrixVersion), run_by("c", "0.0.9"), run_by("d", "")};
  const std::string line = provenance_line(set);
  EXPECT_NE(line.find("cells run by 0.0.9 (2), "), std::string::npos) << line;
  EXPECT_NE(line.find("unknown (1)"), std::string::npos) << line;
  EXPECT_NE(line.find("CHANGELOG.md"), std::string::npos) << line;
}

TEST(Provenance, EveryFormatCarriesIt) {
  ResultsSet set;
  set.cells = {run_by("a", "0.0.9")};
  const std::string line = provenance_line(set);
  EXPECT_NE(render_markdown(set).find(line), std::string::npos);
  EXPECT_NE(render_html(set).find("<p class=\"provenance\">"), std::string::npos);
  const auto json = nlohmann::json::parse(render_json(set));
  EXPECT_EQ(json.at("opmatrix_version"), kOpmatrixVersion);
  EXPECT_EQ(json.at("cells_run_by").at("0.0.9"), 1);
  const std::string junit = render_junit(set);
  EXPECT_NE(junit.find(std::string("<property name=\"opmatrix_version\" value=\"") + kOpmatrixVersion + "\"/>"),
            std::string::npos) << junit;
  EXPECT_NE(junit.find("<property name=\"run_by_opmatrix_version\" value=\"0.0.9\"/>"), std::string::npos);
}

}  // namespace opmatrix
