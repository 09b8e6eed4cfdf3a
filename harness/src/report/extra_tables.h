// The report's tables beyond the compatibility table, each built from results only and shown
// only when there is something to show: other op libraries, GPU architectures per CUDA cell,
// and the build x run load matrix (results/_cross-load.json).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "report/results_set.h"

namespace opmatrix {

struct Grid {
  std::string id;       // HTML id
  std::string title;
  std::string caption;  // what the rows and columns are
  std::string legend;
  std::vector<std::string> columns;            // header of every column, the row-header one first
  std::vector<std::vector<std::string>> rows;  // row header, then one text per column
  std::vector<std::vector<std::string>> classes;  // CSS class per data cell (pass, xfail, fail, notrun)
  std::vector<std::string> notes;              // lines under the table (first undefined symbols …)
  std::string notes_title = "details";         // what the notes are, where HTML folds them
};

// (Each library's own op table is not among them: it follows that library's verdict table.)
std::vector<Grid> extra_tables(const ResultsSet& set);
// The cells that show a broken environment (matrix.yaml's `diagnoses:`), its cause and fix
// (report/environment_table.cpp); build_table keeps them out of the table of our ops.
Grid environments_table(const ResultsSet& set);
// One table per project library: its ops x its cells (report/library_tables.cpp).
std::vector<Grid> library_tables(const ResultsSet& set);

// What the report shows first, one section per subject (report_subjects' order): a heading (none
// for our kernels), the subject's verdict table (build_table(set, subject)), then, for another
// library, its table of each op. Every format renders these in this order.
struct SubjectSection {
  std::string subject;     // "": opmatrix's own kernels
  std::optional<Grid> ops; // another library's ops x cells
};
std::vector<SubjectSection> subject_sections(const ResultsSet& set);
// The behaviour checks per op (opcheck, compile, export, fake-device): report/behaviour_tables.cpp.
std::vector<Grid> behaviour_tables(const ResultsSet& set);

// One check status as a grid shows it: a symbol (✔ ⚠ ✘ ○) and a CSS class.
const char* status_symbol(Status s);
const char* status_class(Status s);

std::string grid_markdown(const Grid& g);
std::string grid_html(const Grid& g);

}  // namespace opmatrix
