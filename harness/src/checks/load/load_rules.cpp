// Two rules over a project cell's finished results (checks/registry.h, CellRule), owned by the
// load module because they decide what `load`, `registration` and `meta` mean together:
//  - one cause, one fix: where a library does not load or the project's module does not import,
//    its ops cannot be judged; each op-level red that follows from it says "not checked: the
//    library does not load here (see load)" instead of its own cause and fix;
//  - behaviour over presence: where something ran an op's fake kernel (the checks' declared
//    fake_kernel_subtests), its outcome is the op's `meta` verdict; a kernel registered for Meta
//    (or served by CompositeImplicitAutograd) that cannot run on fake tensors is no pass, and an
//    op that needs no Meta kernel of its own (it returns nothing; torch provides its fake) is no red.
#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

#include "checks/load/load_rules.h"

#include "checks/cell_context.h"
#include "checks/check_results.h"
#include "checks/registry.h"

namespace opmatrix {

namespace {

std::string first_line(const std::string& s, std::size_t limit = 240) {
  std::string line = s.substr(0, s.find('\n'));
  return line.size() > limit ? line.substr(0, limit) + " …" : line;
}

}  // namespace

void one_cause_one_fix(const Project* project, std::vector<CheckResult>& checks) {
  if (!project) return;
  const auto bad_load = std::find_if(checks.begin(), checks.end(),
                                     [](const CheckResult& c) { return c.check == "load" && is_bad(c.status); });
  if (bad_load == checks.end()) return;
  const bool import_failed = std::any_of(checks.begin(), checks.end(), [](const CheckResult& c) {
    return c.check == "load" && c.subtest == "import" && is_bad(c.status);
  });
  // The ops the loaded libraries never defined (no schema at all): what the failure explains.
  std::set<std::string> unregistered;
  for (const auto& c : checks)
    if (c.diagnosis && c.diagnosis->kind == "not_registered_at_all") unregistered.insert(c.op);
  const std::string cause = fmt::format("not checked: the library does not load here (see load: {})",
                                        first_line(bad_load->message));
  for (auto& c : checks) {
    const CheckSpec* spec = find_check(c.check);
    if (!spec || spec->per != CheckPer::op || c.check == "load" || c.op.empty() || is_torchvision_op(c.op) ||
        !is_bad(c.status) || !(import_failed || unregistered.count(c.op)))
      continue;
    c.status = Status::skip;
    c.message = cause;
    c.diagnosis.reset();
  }
}

namespace {

// The results that ran an op's fake kernel, by outcome.
struct FakeRuns {
  std::vector<const CheckResult*> passed, failed;
  std::vector<const CheckResult*> skipped;
};

bool runs_fake_kernel(const CheckResult& c) {
  const CheckSpec* spec = find_check(c.check);
  if (!spec) return false;
  const auto& subs = spec->fake_kernel_subtests;
  return std::find(subs.begin(), subs.end(), "*") != subs.end() ||
         (!c.subtest.empty() && std::find(subs.begin(), subs.end(), c.subtest) != subs.end());
}

std::string label(const CheckResult& c) { return c.subtest.empty() ? c.check : c.check + " " + c.subtest; }

std::string labels(const std::vector<const CheckResult*>& results) {
  std::vector<std::string> out;
  for (const CheckResult* c : results) out.push_back(label(*c));
  return fmt::format("{}", fmt::join(out, ", "));
}

}  // namespace

void behaviour_over_presence(const Project* project, std::vector<CheckResult>& checks) {
  if (!project) return;  // our kernels' `meta` is the Meta cases, which run the kernels
  std::map<std::string, FakeRuns> runs;
  for (const auto& c : checks) {
    if (c.op.empty() || is_torchvision_op(c.op) || !runs_fake_kernel(c)) continue;
    if (c.status == Status::pass) runs[c.op].passed.push_back(&c);
    else if (c.status == Status::skip) runs[c.op].skipped.push_back(&c);
    else if (c.status == Status::fail) runs[c.op].failed.push_back(&c);
  }
  const std::string& ns = project->ns;
  for (auto& meta : checks) {
    if (meta.check != "meta" || meta.op.empty() || is_torchvision_op(meta.op) || meta.status == Status::skip) continue;
    const FakeRuns& r = runs[meta.op];
    const std::string presence = meta.message;
    if (!r.failed.empty()) {
      // A wrong answer outranks a failure to run: it is what the verdict must name.
      auto wrong = std::find_if(r.failed.begin(), r.failed.end(), [](const CheckResult* c) {
        return c->diagnosis && c->diagnosis->kind.find("_mismatch") != std::string::npos;
      });
      const CheckResult& first = wrong != r.failed.end() ? **wrong : *r.failed.front();
      meta.status = Status::fail;
      meta.message = fmt::format("{}::{} cannot run on fake tensors ({} failed); {}: {}", ns, meta.op,
                                 labels(r.failed), label(first), first_line(first.message));
      if (presence.find("has a Meta kernel") != std::string::npos)
        meta.message += fmt::format(" (its kernel for Meta is registered: {})", presence);
      meta.diagnosis = make_diagnosis(
          wrong != r.failed.end() ? "fake_size_mismatch" : "no_fake_kernel",
          meta.message,
          "give the op a fake kernel that computes sizes, dtype and device without reading data "
          "(torch.library.register_fake, or a Meta TORCH_LIBRARY_IMPL); a kernel registered for every key "
          "(CompositeImplicitAutograd, RegisterOperators' catch-all) runs the real code on fake tensors",
          first.diagnosis ? first.diagnosis->repro : "", first.message);
    } else if (!r.passed.empty()) {
      if (meta.status != Status::pass)
        meta.message = fmt::format("{}::{} needs no Meta kernel of its own: {} pass on fake tensors ({})", ns, meta.op,
                                   labels(r.passed),
                                   presence.find("has no Meta kernel") != std::string::npos
                                       ? "no kernel is registered for Meta; torch's own fake handling serves it"
                                       : presence);
      else
        meta.message = fmt::format("{}; {} pass on fake tensors", presence, labels(r.passed));
      meta.status = Status::pass;
      meta.diagnosis.reset();
    } else {
      const std::string why = r.skipped.empty() ? "nothing ran its fake kernel here"
                                                : first_line(r.skipped.front()->message, 160);
      meta.message += fmt::format(" (judged by presence only: {})", why);
    }
  }
}

namespace {

const bool kRegistered =
    (register_cell_rule(10, {"a library that does not load: its ops' other reds say not checked (see load)",
                             [](CellContext& ctx) { one_cause_one_fix(ctx.project(), ctx.result.checks); }}),
     register_cell_rule(20, {"what ran an op's fake kernel decides its meta verdict",
                             [](CellContext& ctx) { behaviour_over_presence(ctx.project(), ctx.result.checks); }}),
     true);

}  // namespace

}  // namespace opmatrix
