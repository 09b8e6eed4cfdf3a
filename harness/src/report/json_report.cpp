#include "report/provenance.h"
#include "report/render.h"
#include "version.h"

namespace opmatrix {

std::string render_json(const ResultsSet& set) {
  nlohmann::json j;
  j["schema"] = "opmatrix-report";
  j["schema_version"] = 1;
  // The verdicts below are this version's; each cell's harness_version ran it.
  j["opmatrix_version"] = kOpmatrixVersion;
  j["cells_run_by"] = cells_run_by(set);
  j["cells"] = nlohmann::json::array();
  for (const auto& r : set.cells) {
    // A results file as written, plus what the report makes of it (read back, it is ignored).
    nlohmann::json cell = to_json(r);
    cell["verdict"] = to_json(assess(r));
    j["cells"].push_back(cell);
  }
  j["errors"] = set.errors;
  const CompatTable t = build_table(set);
  nlohmann::json table;
  table["columns"] = t.columns;
  table["rows"] = nlohmann::json::array();
  for (std::size_t r = 0; r < t.rows.size(); ++r) {
    nlohmann::json row{{"torch", t.rows[r].first}, {"torchvision", t.rows[r].second}, {"entries", nlohmann::json::object()}};
    for (std::size_t c = 0; c < t.columns.size(); ++c) {
      auto it = t.entries.find({r, c});
      if (it == t.entries.end()) continue;
      std::vector<std::string> ids, lines;
      for (const auto* cell : it->second.cells) {
        ids.push_back(cell_id(*cell));
        lines.push_back(verdict_line(assess(*cell), kTableItems));
      }
      row["entries"][t.columns[c]] = {{"verdict", verdict_class(it->second.verdict)}, {"cells", ids}, {"text", lines}};
    }
    table["rows"].push_back(row);
  }
  j["table"] = table;
  if (!set.cross_load.is_null()) j["cross_load"] = set.cross_load;
  return j.dump(2) + "\n";
}

}  // namespace opmatrix
