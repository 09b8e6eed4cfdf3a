// The results of a run, read back from results/*.json, and the compatibility table built
// from them: rows torch x torchvision, columns CUDA versions and cpu.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "matrix/versions.h"
#include "report/verdict.h"
#include "results/cell_result.h"

namespace opmatrix {

struct ResultsSet {
  std::vector<CellResult> cells;    // sorted by cell id
  std::vector<std::string> errors;  // "FILE: why it could not be read"
  nlohmann::json cross_load;        // results/_cross-load.json, or null
};

// Reads every *.json directly in `dir` (files named _*.json are not cells: _cross-load.json). Unreadable, corrupted or newer-schema files become
// errors; the others are still read.
ResultsSet load_results(const std::string& dir);

// `path` as a ResultsSet: a results folder (load_results), a report JSON file (`opmatrix report
// --format json`, whose cells embed their results files; the errors it recorded stay errors)
// or one results file. A missing path, or a file that is none of these, is an error naming it.
ResultsSet load_results_from(const std::string& path);

// What one table entry shows: the worst verdict of the matrix cells that fall in it.
struct TableCell {
  Verdict verdict = Verdict::not_run;
  std::vector<const CellResult*> cells;
};

struct CompatTable {
  std::vector<std::string> columns;                    // "cpu", then CUDA versions ascending
  std::vector<std::pair<std::string, std::string>> rows;  // (torch, torchvision), newest first
  std::map<std::pair<std::size_t, std::size_t>, TableCell> entries;  // (row, column)
};

// What a report is about, in order: "" for opmatrix's own kernels (where the results hold any),
// then each other library by its label (its name from its metadata, or its PyPI pin).
std::vector<std::string> report_subjects(const ResultsSet& set);

// The torch x CUDA table of one subject's cells ("": our kernels).
CompatTable build_table(const ResultsSet& set, const std::string& subject = "");

std::string cell_id(const CellResult& r);

}  // namespace opmatrix
