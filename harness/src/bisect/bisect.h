// `opmatrix bisect`: along an ordered axis of cells (torch versions, oldest first), the first one
// where a check breaks, found by running as few cells as binary search allows.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "results/cell_result.h"

namespace opmatrix {

// What one cell says about the check being bisected.
struct Probe {
  enum class Outcome { good, bad, untestable };
  Outcome outcome = Outcome::untestable;
  std::string why;  // the failing result's message, or why the check could not be judged
};

// The check (and, optionally, the op and sub-test) a bisect follows. It is good in a cell when
// every matching result passes (xpass counts), bad when one does not pass and is not a skip,
// untestable when none was produced (the cell stopped before it, or every one skipped).
struct BisectTarget {
  std::string check, op, subtest;
};
Probe judge(const CellResult& r, const BisectTarget& target);

struct BisectStep {
  std::size_t index;  // into the axis
  Probe probe;
};

struct BisectOutcome {
  bool found = false;
  bool ends_hold = false;     // the first point is good and the last bad; else the bounds below mean nothing
  std::size_t first_bad = 0;  // index of the first bad point (or, not found, the end of the untestable range)
  std::size_t last_good = 0;  // index of the last good point before it
  std::vector<BisectStep> steps;  // in the order run
  std::string error;              // the ends do not bracket a break, or every point between is untestable
};

// Binary search over points 0..n-1: point 0 must be good and point n-1 bad (both are probed
// first, so a wrong premise is an error, not a wrong answer). Untestable points are stepped
// around, as `git bisect skip` does; if every candidate is untestable the outcome names the range.
BisectOutcome bisect(std::size_t n, const std::function<Probe(std::size_t)>& probe);

}  // namespace opmatrix
