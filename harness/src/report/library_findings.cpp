#include "report/library_findings.h"

#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "checks/load/reference_kernels.h"
#include "report/verdict.h"

namespace opmatrix {

namespace {

// One kind of finding: which results it takes over, what makes two of them one finding (their
// cause, in words without the op), and the line it says once.
struct FindingRule {
  const char* check;
  FindingRole role;
  bool (*holds)(const CheckResult&);
  std::string (*cause)(const CheckResult&);
  // `ops`: "8 of 14 ops (a, b, c, +5)"
  std::string (*line)(const std::string& ops, const std::string& cause);
};

bool diagnosed(const CheckResult& c, const char* kind) { return c.diagnosis && c.diagnosis->kind == kind; }

const FindingRule kFindingRules[] = {
    // registration (reference_promises.cpp): a binary built for another torch; one cause per
    // pattern of keys, so two patterns are two findings.
    {"registration", FindingRole::breaks,
     [](const CheckResult& c) { return diagnosed(c, kKernelsUnderOtherKeys) && weight_of(c) != Weight::none; },
     [](const CheckResult& c) { return c.diagnosis->summary; },
     [](const std::string& ops, const std::string& cause) { return fmt::format("{}: their {}", ops, cause); }},
    // meta (load_judge.cpp, load_rules.cpp): no Meta kernel and nothing ran a fake kernel.
    {"meta", FindingRole::limits,
     [](const CheckResult& c) { return diagnosed(c, "no_meta_kernel") && weight_of(c) == Weight::limits; },
     [](const CheckResult&) { return std::string(); },
     [](const std::string& ops, const std::string&) {
       return fmt::format("no Meta kernel for {}: judged by presence only; torch.compile / export of these need a "
                          "fake kernel", ops);
     }},
    // registration (reference_promises.cpp): a CUDA-only op where no CUDA runs.
    {"registration", FindingRole::unobservable,
     [](const CheckResult& c) { return c.status == Status::skip && c.message.rfind(kCudaOnlyUnobservable, 0) == 0; },
     [](const CheckResult&) { return std::string(); },
     [](const std::string& ops, const std::string&) {
       return fmt::format("{} not checked here: CUDA-only by design (their reference cell has CUDA kernels and no CPU "
                          "kernels), and this runtime has no CUDA to show them", ops);
     }},
};

const FindingRule* rule_of(const CheckResult& c) {
  if (c.op.empty() || is_torchvision_op(c.op)) return nullptr;
  for (const auto& rule : kFindingRules)
    if (c.check == rule.check && rule.holds(c)) return &rule;
  return nullptr;
}

// "8 of 14 ops (a, b, c, +5)": the first three named, the section's check list has the rest.
std::string ops_named(const std::vector<std::string>& ops, std::size_t of) {
  constexpr std::size_t kNamed = 3;
  std::vector<std::string> named(ops.begin(), ops.begin() + static_cast<long>(std::min(kNamed, ops.size())));
  if (ops.size() > kNamed) named.push_back(fmt::format("+{}", ops.size() - kNamed));
  return fmt::format("{} of {} op{} ({})", ops.size(), of, of == 1 ? "" : "s", fmt::join(named, ", "));
}

std::size_t ops_with(const CellResult& r, const std::string& check) {
  std::set<std::string> ops;
  for (const auto& c : r.checks)
    if (c.check == check && !c.op.empty() && !is_torchvision_op(c.op)) ops.insert(c.op);
  return ops.size();
}

struct Gathered {
  std::vector<std::string> ops;
  bool declared = true;
};

}  // namespace

bool part_of_library_finding(const CheckResult& c) { return rule_of(c) != nullptr; }

std::vector<LibraryFinding> library_findings(const CellResult& r) {
  std::vector<LibraryFinding> out;
  for (const auto& rule : kFindingRules) {
    std::vector<std::string> causes;  // in the order met
    std::map<std::string, Gathered> by_cause;
    for (const auto& c : r.checks) {
      if (rule_of(c) != &rule) continue;
      const std::string cause = rule.cause(c);
      if (!by_cause.count(cause)) causes.push_back(cause);
      Gathered& g = by_cause[cause];
      if (std::find(g.ops.begin(), g.ops.end(), c.op) == g.ops.end()) g.ops.push_back(c.op);
      g.declared = g.declared && c.status == Status::xfail;
    }
    const std::size_t of = ops_with(r, rule.check);
    for (const auto& cause : causes) {
      const Gathered& g = by_cause[cause];
      out.push_back({rule.role, rule.line(ops_named(g.ops, of), cause), g.declared, g.ops.size() == of});
    }
  }
  return out;
}

}  // namespace opmatrix
