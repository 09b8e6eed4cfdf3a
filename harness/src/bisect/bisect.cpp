#include "bisect/bisect.h"

#include <fmt/format.h>

namespace opmatrix {

Probe judge(const CellResult& r, const BisectTarget& t) {
  bool any = false;
  for (const auto& c : r.checks) {
    if (c.check != t.check || (!t.op.empty() && c.op != t.op) || (!t.subtest.empty() && c.subtest != t.subtest))
      continue;
    if (c.status == Status::skip) continue;
    any = true;
    if (c.status == Status::pass || c.status == Status::xpass) continue;
    std::string why = c.diagnosis && !c.diagnosis->summary.empty() ? c.diagnosis->summary : c.message;
    return {Probe::Outcome::bad, fmt::format("{} {}: {}", c.op.empty() ? c.check : c.op + " · " + c.check,
                                             to_string(c.status), why)};
  }
  if (any) return {Probe::Outcome::good, ""};
  if (r.status == Status::skip)
    return {Probe::Outcome::untestable, "the cell did not run here" +
                                            (r.checks.empty() ? std::string() : ": " + r.checks.front().message)};
  return {Probe::Outcome::untestable, fmt::format("no {} result that is not a skip (the cell stopped before it: {})",
                                                  t.check, to_string(r.status))};
}

BisectOutcome bisect(std::size_t n, const std::function<Probe(std::size_t)>& probe) {
  BisectOutcome out;
  if (n < 2) {
    out.error = "the axis needs at least two cells (a good end and a bad end)";
    return out;
  }
  auto run = [&](std::size_t i) {
    out.steps.push_back({i, probe(i)});
    return out.steps.back().probe.outcome;
  };
  if (run(0) != Probe::Outcome::good) {
    out.error = fmt::format("the first cell is not good: {}", out.steps.back().probe.why);
    return out;
  }
  if (run(n - 1) != Probe::Outcome::bad) {
    out.error = fmt::format("the last cell is not bad: {}",
                            out.steps.back().probe.why.empty() ? "the check passes there" : out.steps.back().probe.why);
    return out;
  }
  out.ends_hold = true;
  std::size_t good = 0, bad = n - 1;
  std::vector<bool> untestable(n, false);
  while (bad - good > 1) {
    // The middle, or the testable point nearest to it inside (good, bad).
    const std::size_t mid = good + (bad - good) / 2;
    std::size_t pick = n;
    for (std::size_t d = 0; d < bad - good && pick == n; ++d) {
      if (mid + d < bad && !untestable[mid + d]) pick = mid + d;
      else if (mid >= d + 1 && mid - d > good && !untestable[mid - d]) pick = mid - d;
    }
    if (pick == n) {
      out.error = fmt::format("every point between {} and {} is untestable: the first bad one is among them", good, bad);
      out.last_good = good;
      out.first_bad = bad;
      return out;
    }
    switch (run(pick)) {
      case Probe::Outcome::good: good = pick; break;
      case Probe::Outcome::bad: bad = pick; break;
      case Probe::Outcome::untestable: untestable[pick] = true; break;
    }
  }
  out.found = true;
  out.last_good = good;
  out.first_bad = bad;
  return out;
}

}  // namespace opmatrix
