// Per-op results that say one thing about a whole library, said once per cell by the verdict
// (report/verdict.h) instead of once per op: its kernels registered under other dispatch keys
// than the reference cell's (one break naming the ops), no Meta kernel judged by presence only
// (one limit), CUDA-only ops in a runtime without CUDA (one line: nothing to see there).
#pragma once

#include <string>
#include <vector>

#include "results/cell_result.h"

namespace opmatrix {

enum class FindingRole {
  breaks,        // a red, named once
  limits,        // a limit, named once
  unobservable,  // nothing to judge here: the cell does not run where every op is such
};

struct LibraryFinding {
  FindingRole role = FindingRole::breaks;
  std::string line;       // "no Meta kernel for 8 of 14 ops (a, b, c, +5): judged by presence only; …"
  bool declared = false;  // every result in it is an expected failure (matrix.yaml `expect:`)
  bool every_op = false;  // it holds for every op of the cell's library
};

// Whether the verdict leaves `c` to a library finding rather than weighing it alone.
bool part_of_library_finding(const CheckResult& c);

// The cell's library findings, in the order of the table that defines them.
std::vector<LibraryFinding> library_findings(const CellResult& r);

}  // namespace opmatrix
