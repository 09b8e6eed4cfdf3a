#include "checks/load/reference_promises.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "matrix/versions.h"

namespace opmatrix {

namespace {

bool has_cuda(const CellResult& r) { return r.cell.value("cuda", "none") != "none"; }

bool passed(const CellResult& r, const std::string& check) {
  bool any = false;
  for (const auto& c : r.checks) {
    if (c.check != check || !c.op.empty()) continue;
    if (is_bad(c.status)) return false;
    any = any || c.status == Status::pass;
  }
  return any;
}

bool torch_newer(const CellResult* a, const CellResult* b) {
  return version_less(b->cell.value("torch", ""), a->cell.value("torch", ""));
}

const CheckResult* registration(const CellResult& r, const std::string& op) {
  for (const auto& c : r.checks)
    if (c.check == "registration" && c.op == op) return &c;
  return nullptr;
}

bool contains(const std::vector<std::string>& v, const std::string& s) { return std::find(v.begin(), v.end(), s) != v.end(); }

// The reference's kernels for `op`, where it measured them: an op with a schema and no kernel at
// all has none but lacks some (`missing_kernels`); results older than both fields say nothing.
const std::vector<std::string>* reference_kernels(const CellResult& ref, const std::string& op) {
  const CheckResult* c = registration(ref, op);
  return c && (!c->kernels.empty() || !c->missing_kernels.empty()) ? &c->kernels : nullptr;
}

void judge_against(CellResult& cell, const CellResult& ref, const std::string& why) {
  for (auto& c : cell.checks) {
    if (c.check != "registration" || !is_bad(c.status) || !c.diagnosis || c.diagnosis->kind != "not_registered" ||
        c.missing_kernels.empty())
      continue;
    const std::vector<std::string>* has = reference_kernels(ref, c.op);
    if (!has) continue;
    std::vector<std::string> inherited, lost;
    // What the cell's own promise (declared, or a CPU variant's) already excuses is not missing.
    for (const auto& key : c.missing_kernels)
      // A CPU reference cannot say whether the library has CUDA kernels.
      (contains(*has, key) || (key == "CUDA" && !has_cuda(ref)) ? lost : inherited).push_back(key);
    const std::string ref_name = fmt::format("the reference cell {} (torch {}, {})", ref.cell.value("id", ""),
                                             ref.cell.value("torch", ""), why);
    if (lost.empty()) {
      c.status = Status::pass;
      c.message += fmt::format(" — as in {}, where it has no {} kernel either: not a promise of the library "
                               "(the reference cell judges it)", ref_name, fmt::join(inherited, ", "));
      c.diagnosis.reset();
    } else if (std::any_of(lost.begin(), lost.end(), [&](const std::string& k) { return contains(*has, k); })) {
      c.message += fmt::format(" — {} has it: lost here", ref_name);
    }
  }
}

}  // namespace

ReferenceCell reference_cell(const std::vector<const CellResult*>& cells) {
  for (const CellResult* r : cells)
    if (r->cell.value("reference", false)) return {r, "declared in matrix.yaml"};
  std::vector<const CellResult*> works;
  for (const CellResult* r : cells)
    if (passed(*r, "build") && passed(*r, "load")) works.push_back(r);
  if (works.empty()) return {};
  const bool wheel = works.front()->cell.contains("project") && works.front()->cell["project"].contains("wheel");
  std::vector<const CellResult*> accepted;
  if (wheel)
    for (const CellResult* r : works)
      if (passed(*r, "wheel")) accepted.push_back(r);
  const auto& pool = accepted.empty() ? works : accepted;
  const CellResult* best = *std::min_element(pool.begin(), pool.end(), torch_newer);
  return {best, !accepted.empty() ? "a torch its wheel's Requires-Dist accepts, the newest where it loads"
                                  : "the newest torch where it builds and loads"};
}

void apply_reference_promises(std::vector<CellResult>& cells) {
  std::map<std::string, std::vector<const CellResult*>> libraries;
  for (const auto& r : cells)
    if (!subject_of(r).empty()) libraries[subject_of(r)].push_back(&r);
  for (const auto& [label, members] : libraries) {
    if (members.size() < 2) continue;
    const ReferenceCell ref = reference_cell(members);
    if (!ref.cell) continue;
    for (auto& r : cells)
      if (subject_of(r) == label && &r != ref.cell) judge_against(r, *ref.cell, ref.why);
  }
}

}  // namespace opmatrix
