// Two results sets compared, for the pull-request gate: "did this change break a cell that
// worked on main?" (docs/cli.md#diff). A pure function of the two sets; rendering is
// diff_render.h's, reading them is results_set.h's.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "report/results_set.h"

namespace opmatrix {

// One check result whose status (or, still failing, whose diagnosis) differs between the sets.
// A result present on one side only has the other side's status empty.
struct ResultChange {
  enum class Kind {
    regressed,  // not bad in BASE (or not there), bad in HEAD
    fixed,      // bad in BASE, pass or xfail in HEAD
    diagnosis,  // bad in both, but the status or the diagnosis (kind, summary) differs
    status,     // any other status change, e.g. pass -> skip: no longer checked
    added,      // not in BASE, not bad in HEAD: a new check that passes (or skips, or is expected to fail)
  };
  Kind kind = Kind::status;
  std::string cell;
  std::string op, check, arch, subtest, sample;  // sample: HEAD's, else BASE's
  std::optional<Status> base, head;
  std::string base_expected_reason, head_expected_reason;
  std::optional<Diagnosis> base_diagnosis, head_diagnosis;
  std::string head_message;  // else BASE's, for a result HEAD no longer has
  std::string why;           // for a person: why it counts, or what it means ("no longer checked")
};

// A cell whose verdict (report/verdict.h: works, works with limits, broken; its reasons),
// status or meeting of its expectations differs between the sets.
struct VerdictChange {
  std::string cell;
  Status base_status = Status::pass, head_status = Status::pass;
  bool base_meets = true, head_meets = true;
  bool regressed = false;  // it met its expectations in BASE and does not in HEAD
  std::string base_verdict, head_verdict;  // verdict_line(), reasons included
};

// A cell on one side only.
struct CellOnOneSide {
  std::string cell;
  Status status = Status::pass;
  bool meets_expectations = true;
  std::string verdict;  // verdict_line(), reasons included
};

struct Diff {
  std::vector<ResultChange> regressed, fixed, changed;  // changed: kinds diagnosis, status and added
  std::vector<CellOnOneSide> cells_added, cells_removed;  // removed: in BASE, not in HEAD (a regression)
  std::vector<VerdictChange> verdicts;
  std::size_t cells_compared = 0, results_compared = 0;
  // Cells per opmatrix version that ran them (report/provenance.h): where the two sides differ,
  // a change may be opmatrix's own (a new check or rule, CHANGELOG.md), not the library's.
  std::map<std::string, int> base_run_by, head_run_by;

  bool empty() const {
    return regressed.empty() && fixed.empty() && changed.empty() && cells_added.empty() && cells_removed.empty() &&
           verdicts.empty();
  }
};

// Cells are matched by id; within a cell, results by (check, op, arch, subtest), several with
// one key paired in order (those with the same sample first). Times, cache keys and logs are
// not compared; the harness versions are counted per side (base_run_by, head_run_by).
Diff diff_results(const ResultsSet& base, const ResultsSet& head);

// The gate: something that worked in BASE does not in HEAD — a regressed result, a cell that
// met its expectations and no longer does, or a cell of BASE missing from HEAD.
bool has_regressions(const Diff& d);

const char* to_string(ResultChange::Kind k);

}  // namespace opmatrix
