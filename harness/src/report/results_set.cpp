#include "report/results_set.h"

#include <algorithm>
#include <filesystem>

#include <fmt/format.h>

#include "checks/load/reference_promises.h"
#include "matrix/versions.h"
#include "util/atomic_write.h"

namespace fs = std::filesystem;

namespace opmatrix {

std::string cell_id(const CellResult& r) { return r.cell.value("id", ""); }

ResultsSet load_results(const std::string& dir) {
  ResultsSet set;
  std::error_code ec;
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (e.is_regular_file() && e.path().extension() == ".json") files.push_back(e.path());
  if (ec) set.errors.push_back(fmt::format("{}: cannot read the results folder: {}", dir, ec.message()));
  std::sort(files.begin(), files.end());
  for (const auto& f : files) {
    nlohmann::json j = nlohmann::json::parse(read_text_file(f.string()), nullptr, false);
    if (j.is_discarded()) {
      set.errors.push_back(fmt::format("{}: not valid JSON (corrupted or cut short); skipped", f.string()));
      continue;
    }
    if (f.filename().string()[0] == '_') {
      if (f.filename() == "_cross-load.json" && j.is_object() && j.value("kind", "") == "opmatrix-cross-load" &&
          (j.value("schema_version", 0) == 1 || j.value("schema_version", 0) == 2))  // 1: no stable builds
        set.cross_load = j;
      else
        set.errors.push_back(fmt::format("{}: not a cross-load file this harness reads; skipped", f.string()));
      continue;
    }
    try {
      set.cells.push_back(cell_result_from_json(j));
    } catch (const std::exception& e) {
      set.errors.push_back(fmt::format("{}: {}; skipped", f.string(), e.what()));
    }
  }
  std::sort(set.cells.begin(), set.cells.end(),
            [](const CellResult& a, const CellResult& b) { return cell_id(a) < cell_id(b); });
  // What each library promises where matrix.yaml says nothing: its reference cell's kernels.
  apply_reference_promises(set.cells);
  return set;
}

namespace {

void read_cells(const nlohmann::json& cells, const std::string& path, ResultsSet& set) {
  for (std::size_t i = 0; i < cells.size(); ++i) {
    try {
      set.cells.push_back(cell_result_from_json(cells[i]));
    } catch (const std::exception& e) {
      set.errors.push_back(fmt::format("{}: cells[{}]: {}; skipped", path, i, e.what()));
    }
  }
}

// Schema 2 (an atlas): the cells are in the report's `cells_files`, each a schema-1 report beside
// it (evidence/<library>.json), named relative to it and never outside its folder.
void read_cells_files(const nlohmann::json& names, const std::string& path, ResultsSet& set) {
  const fs::path folder = fs::path(path).parent_path();
  for (const auto& name : names) {
    const fs::path rel = name.is_string() ? fs::path(name.get<std::string>()).lexically_normal() : fs::path();
    if (rel.empty() || rel.is_absolute() || *rel.begin() == "..") {
      set.errors.push_back(fmt::format("{}: cells_files: {} is not a file name inside its folder; skipped", path,
                                       name.dump()));
      continue;
    }
    const std::string file = (folder / rel).string();
    std::error_code ec;
    if (!fs::is_regular_file(file, ec)) {
      set.errors.push_back(fmt::format("{}: cells_files: {} is not there: its cells are missing", path, file));
      continue;
    }
    const nlohmann::json j = nlohmann::json::parse(read_text_file(file), nullptr, false);
    if (j.is_discarded() || !j.is_object() || j.value("schema", "") != "opmatrix-report" ||
        j.value("schema_version", 0) != 1 || !j.value("cells", nlohmann::json()).is_array()) {
      set.errors.push_back(fmt::format("{}: not a schema-1 report with a cells array (corrupted or cut short?): its "
                                       "cells are missing", file));
      continue;
    }
    read_cells(j["cells"], file, set);
  }
}

// The cells a report JSON file embeds (or names, schema 2), read as their results files would be.
void read_report(const nlohmann::json& j, const std::string& path, ResultsSet& set) {
  const int version = j.value("schema_version", 0);
  if (version > 2) {
    set.errors.push_back(fmt::format("{}: report schema version {} is newer than this opmatrix reads (2); update "
                                     "opmatrix", path, version));
    return;
  }
  const nlohmann::json cells = j.value("cells", nlohmann::json());
  const nlohmann::json cells_files = j.value("cells_files", nlohmann::json());
  if (version == 2 && cells_files.is_array()) {
    read_cells_files(cells_files, path, set);
  } else if (version == 1 && cells.is_array()) {
    read_cells(cells, path, set);
  } else {
    set.errors.push_back(fmt::format("{}: a report without a valid schema_version and its cells (a cells array, or "
                                     "cells_files in schema 2)", path));
    return;
  }
  // A report rendered from a folder with broken files is no better a witness than the folder.
  for (const auto& e : j.value("errors", nlohmann::json::array()))
    if (e.is_string()) set.errors.push_back(fmt::format("{}: recorded when the report was made: {}", path, e.get<std::string>()));
  set.cross_load = j.value("cross_load", nlohmann::json());
}

}  // namespace

ResultsSet load_results_from(const std::string& path) {
  std::error_code ec;
  const auto kind = fs::status(path, ec).type();
  if (kind == fs::file_type::directory) return load_results(path);
  ResultsSet set;
  if (kind != fs::file_type::regular) {
    set.errors.push_back(fmt::format("{}: no such results folder or report file", path));
    return set;
  }
  const nlohmann::json j = nlohmann::json::parse(read_text_file(path), nullptr, false);
  if (j.is_discarded() || !j.is_object()) {
    set.errors.push_back(fmt::format("{}: not valid JSON (corrupted or cut short), so neither a report nor a "
                                     "results file", path));
    return set;
  }
  const std::string schema = j.value("schema", "");
  if (schema == "opmatrix-report") {
    read_report(j, path, set);
  } else if (schema == "opmatrix-results") {
    try {
      set.cells.push_back(cell_result_from_json(j));
    } catch (const std::exception& e) {
      set.errors.push_back(fmt::format("{}: {}", path, e.what()));
    }
  } else {
    set.errors.push_back(fmt::format("{}: neither a report (\"schema\": \"opmatrix-report\") nor a results file "
                                     "(\"schema\": \"opmatrix-results\")", path));
  }
  std::sort(set.cells.begin(), set.cells.end(),
            [](const CellResult& a, const CellResult& b) { return cell_id(a) < cell_id(b); });
  // What each library promises where matrix.yaml says nothing: its reference cell's kernels.
  apply_reference_promises(set.cells);
  return set;
}

std::vector<std::string> report_subjects(const ResultsSet& set) {
  std::vector<std::string> out;
  if (std::any_of(set.cells.begin(), set.cells.end(), [](const CellResult& r) { return subject_of(r).empty(); }))
    out.push_back("");
  for (const auto& r : set.cells) {
    const std::string s = subject_of(r);
    if (!s.empty() && std::find(out.begin(), out.end(), s) == out.end()) out.push_back(s);
  }
  return out;
}

CompatTable build_table(const ResultsSet& set, const std::string& subject) {
  CompatTable t;
  std::vector<std::string> cudas;
  // A cell that shows a broken environment is in its own table (environments_table), not here.
  auto ours = [&](const CellResult& r) { return subject_of(r) == subject && !r.cell.contains("diagnoses"); };
  for (const auto& r : set.cells) {
    if (!ours(r)) continue;
    const std::string cuda = r.cell.value("cuda", "none");
    if (cuda != "none" && std::find(cudas.begin(), cudas.end(), cuda) == cudas.end()) cudas.push_back(cuda);
    std::pair<std::string, std::string> row{r.cell.value("torch", ""), r.cell.value("torchvision", "")};
    if (std::find(t.rows.begin(), t.rows.end(), row) == t.rows.end()) t.rows.push_back(row);
  }
  std::sort(cudas.begin(), cudas.end(), version_less);
  t.columns.push_back("cpu");
  t.columns.insert(t.columns.end(), cudas.begin(), cudas.end());
  std::sort(t.rows.begin(), t.rows.end(), [](const auto& a, const auto& b) {
    if (a.first != b.first) return version_less(b.first, a.first);
    return version_less(b.second, a.second);
  });
  for (const auto& r : set.cells) {
    if (!ours(r)) continue;
    const std::string cuda = r.cell.value("cuda", "none");
    const std::string col = cuda == "none" ? "cpu" : cuda;
    const std::size_t ci = static_cast<std::size_t>(std::find(t.columns.begin(), t.columns.end(), col) - t.columns.begin());
    const std::pair<std::string, std::string> row{r.cell.value("torch", ""), r.cell.value("torchvision", "")};
    const std::size_t ri = static_cast<std::size_t>(std::find(t.rows.begin(), t.rows.end(), row) - t.rows.begin());
    TableCell& e = t.entries[{ri, ci}];
    const Verdict v = assess(r).verdict;
    if (e.cells.empty() || worse(v, e.verdict)) e.verdict = v;
    e.cells.push_back(&r);
  }
  return t;
}

}  // namespace opmatrix
