#include "diff/results_diff.h"

#include <map>

#include <fmt/format.h>

#include "report/provenance.h"

namespace opmatrix {

namespace {

// Reasons a verdict names in a diff: enough to see what changed in it.
constexpr std::size_t kVerdictItems = 6;

using Kind = ResultChange::Kind;

bool same_key(const CheckResult& a, const CheckResult& b) {
  return a.check == b.check && a.op == b.op && a.arch == b.arch && a.subtest == b.subtest;
}

// A person reads "still failing, differently" from the kind and the summary; the evidence and
// the repro carry paths and addresses that change from run to run.
bool same_diagnosis(const std::optional<Diagnosis>& a, const std::optional<Diagnosis>& b) {
  if (a.has_value() != b.has_value()) return false;
  return !a || (a->kind == b->kind && a->summary == b->summary);
}

std::string expected(const std::string& reason) { return reason.empty() ? "" : fmt::format(" ({})", reason); }

// What the pair's change is, or nothing when it did not change in a way the gate reads.
// `why` says, for a person, why it counts or what it means.
std::optional<Kind> classify(const CheckResult* b, const CheckResult* h, std::string& why) {
  if (!b && !h) return std::nullopt;
  if (!h) {
    why = is_bad(b->status) ? fmt::format("no longer checked: HEAD has no such result (it was {} in BASE)",
                                          to_string(b->status))
                            : "no longer checked: HEAD has no such result";
    return Kind::status;
  }
  const Status hs = h->status;
  if (!b) {
    if (is_bad(hs)) {
      why = fmt::format("new in HEAD, and {}", to_string(hs));
      return Kind::regressed;
    }
    why = "new in HEAD";
    return Kind::added;
  }
  const Status bs = b->status;
  if (is_bad(hs) && !is_bad(bs)) {
    if (bs == Status::xfail)
      why = hs == Status::xpass ? fmt::format("expected to fail in BASE{}, passes unexpectedly in HEAD: the expect "
                                              "entry no longer matches what happens",
                                              expected(b->expected_reason))
                                : fmt::format("an expected failure in BASE{}, an unexpected {} in HEAD",
                                              expected(b->expected_reason), to_string(hs));
    else if (bs == Status::skip)
      why = fmt::format("skipped in BASE{}, {} in HEAD", expected(b->expected_reason), to_string(hs));
    else
      why = fmt::format("passed in BASE, {} in HEAD", to_string(hs));
    return Kind::regressed;
  }
  if (is_bad(bs) && (hs == Status::pass || hs == Status::xfail)) {
    why = hs == Status::pass ? "passes now" : fmt::format("now an expected failure{}", expected(h->expected_reason));
    return Kind::fixed;
  }
  if (is_bad(bs) && is_bad(hs)) {
    if (bs == hs && same_diagnosis(b->diagnosis, h->diagnosis)) return std::nullopt;
    why = bs == hs ? "still failing, with another diagnosis" : "still failing, differently";
    return Kind::diagnosis;
  }
  if (bs == hs) return std::nullopt;
  // Neither side is bad from here on, except a bad BASE that HEAD skips.
  if (hs == Status::skip)
    why = is_bad(bs) ? fmt::format("no longer checked (it was {} in BASE)", to_string(bs))
                     : "no longer checked: " + (h->message.empty() ? std::string("skipped") : h->message);
  else if (bs == Status::skip)
    why = "now checked";
  else if (hs == Status::xfail)
    why = fmt::format("passed in BASE, now an expected failure{}: an expect entry covers a failure",
                      expected(h->expected_reason));
  else
    why = "passes, no longer an expected failure";
  return Kind::status;
}

ResultChange change_of(const std::string& cell, const CheckResult* b, const CheckResult* h, Kind kind,
                       std::string why) {
  const CheckResult& any = h ? *h : *b;
  ResultChange c;
  c.kind = kind;
  c.cell = cell;
  c.op = any.op;
  c.check = any.check;
  c.arch = any.arch;
  c.subtest = any.subtest;
  c.sample = h && !h->sample.empty() ? h->sample : b ? b->sample : std::string();
  c.head_message = any.message;
  c.why = std::move(why);
  if (b) {
    c.base = b->status;
    c.base_expected_reason = b->expected_reason;
    c.base_diagnosis = b->diagnosis;
  }
  if (h) {
    c.head = h->status;
    c.head_expected_reason = h->expected_reason;
    c.head_diagnosis = h->diagnosis;
  }
  return c;
}

void add(Diff& d, ResultChange c) {
  switch (c.kind) {
    case Kind::regressed: d.regressed.push_back(std::move(c)); break;
    case Kind::fixed: d.fixed.push_back(std::move(c)); break;
    default: d.changed.push_back(std::move(c)); break;
  }
}

void diff_cell(Diff& d, const std::string& id, const CellResult& base, const CellResult& head) {
  const auto& bs = base.checks;
  const auto& hs = head.checks;
  std::vector<bool> used(bs.size(), false);
  std::vector<const CheckResult*> partner(hs.size(), nullptr);
  // Results sharing a key pair in order, the same sample first: a sample added in the middle
  // then shows as one new result, not as every later one changed.
  for (bool by_sample : {true, false})
    for (std::size_t i = 0; i < hs.size(); ++i) {
      if (partner[i]) continue;
      for (std::size_t j = 0; j < bs.size(); ++j)
        if (!used[j] && same_key(hs[i], bs[j]) && (!by_sample || hs[i].sample == bs[j].sample)) {
          used[j] = true;
          partner[i] = &bs[j];
          break;
        }
    }
  for (std::size_t i = 0; i < hs.size(); ++i) {
    ++d.results_compared;
    std::string why;
    if (auto kind = classify(partner[i], &hs[i], why)) add(d, change_of(id, partner[i], &hs[i], *kind, why));
  }
  for (std::size_t j = 0; j < bs.size(); ++j) {
    if (used[j]) continue;
    ++d.results_compared;
    std::string why;
    if (auto kind = classify(&bs[j], nullptr, why)) add(d, change_of(id, &bs[j], nullptr, *kind, why));
  }
  const std::string base_verdict = verdict_line(assess(base), kVerdictItems);
  const std::string head_verdict = verdict_line(assess(head), kVerdictItems);
  if (base.status != head.status || base.meets_expectations != head.meets_expectations || base_verdict != head_verdict)
    d.verdicts.push_back({id, base.status, head.status, base.meets_expectations, head.meets_expectations,
                          base.meets_expectations && !head.meets_expectations, base_verdict, head_verdict});
}

std::map<std::string, std::vector<const CellResult*>> by_id(const ResultsSet& set) {
  std::map<std::string, std::vector<const CellResult*>> m;
  for (const auto& r : set.cells) m[cell_id(r)].push_back(&r);
  return m;
}

}  // namespace

const char* to_string(ResultChange::Kind k) {
  switch (k) {
    case Kind::regressed: return "regressed";
    case Kind::fixed: return "fixed";
    case Kind::diagnosis: return "diagnosis";
    case Kind::status: return "status";
    case Kind::added: return "added";
  }
  return "";
}

Diff diff_results(const ResultsSet& base, const ResultsSet& head) {
  Diff d;
  d.base_run_by = cells_run_by(base);
  d.head_run_by = cells_run_by(head);
  const auto b = by_id(base), h = by_id(head);
  auto bi = b.begin(), hi = h.begin();
  // Both maps are sorted by id: walk them together.
  while (bi != b.end() || hi != h.end()) {
    const bool take_base = hi == h.end() || (bi != b.end() && bi->first <= hi->first);
    const bool take_head = bi == b.end() || (hi != h.end() && hi->first <= bi->first);
    static const std::vector<const CellResult*> none;
    const auto& bc = take_base ? bi->second : none;
    const auto& hc = take_head ? hi->second : none;
    const std::string& id = take_base ? bi->first : hi->first;
    // Two results files for one id (copied folders, renamed files) pair in order too.
    const std::size_t n = std::min(bc.size(), hc.size());
    for (std::size_t i = 0; i < n; ++i) {
      ++d.cells_compared;
      diff_cell(d, id, *bc[i], *hc[i]);
    }
    for (std::size_t i = n; i < bc.size(); ++i) d.cells_removed.push_back({id, bc[i]->status, bc[i]->meets_expectations,
                                                                         verdict_line(assess(*bc[i]), kVerdictItems)});
    for (std::size_t i = n; i < hc.size(); ++i) d.cells_added.push_back({id, hc[i]->status, hc[i]->meets_expectations,
                                                                       verdict_line(assess(*hc[i]), kVerdictItems)});
    if (take_base) ++bi;
    if (take_head) ++hi;
  }
  return d;
}

bool has_regressions(const Diff& d) {
  if (!d.regressed.empty() || !d.cells_removed.empty()) return true;
  for (const auto& v : d.verdicts)
    if (v.regressed) return true;
  return false;
}

}  // namespace opmatrix
