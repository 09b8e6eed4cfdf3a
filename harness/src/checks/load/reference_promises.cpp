#include "checks/load/reference_promises.h"

#include <algorithm>
#include <map>
#include <regex>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "checks/load/reference_kernels.h"
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

// Whether the cell's torch is of the release a wheel pins exactly ("torch==2.4.0" and torch
// 2.4.1): the wheel check refuses it, but a binary built for 2.4.0 is built for that release.
bool on_pinned_line(const CellResult& r) {
  static const std::regex pin(R"(torch\s*\(?\s*==\s*(\d+\.\d+))");
  const std::string torch = r.cell.value("torch", "");
  for (const auto& c : r.checks) {
    std::smatch m;
    if (c.check == "wheel" && c.diagnosis && c.diagnosis->kind == "torch_requirement" &&
        std::regex_search(c.diagnosis->evidence, m, pin))
      return torch == m[1].str() || torch.rfind(m[1].str() + ".", 0) == 0;
  }
  return false;
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

std::string reference_name(const CellResult& ref, const std::string& why) {
  return fmt::format("the reference cell {} (torch {}, {})", ref.cell.value("id", ""), ref.cell.value("torch", ""), why);
}

// "ns::op": the project's namespace, else what the message starts with ("ns::op: no CPU kernel").
std::string qualified(const CellResult& r, const CheckResult& c) {
  const std::string ns = r.cell.contains("project") ? r.cell["project"].value("namespace", "") : "";
  return ns.empty() ? c.message.substr(0, c.message.find(": ")) : ns + "::" + c.op;
}

std::string namespace_of(const CellResult& r, const CheckResult& c) {
  const std::string q = qualified(r, c);
  return q.substr(0, q.find("::"));
}

// A missing-kernel red these rules may judge: a kernel the promise asks for, measured lacking.
bool judgeable(const CheckResult& c) {
  return c.check == "registration" && is_bad(c.status) && c.diagnosis && c.diagnosis->kind == "not_registered" &&
         !c.missing_kernels.empty() && c.message.find(": lost here") == std::string::npos;
}

// A CUDA-only op no longer owes a CPU kernel: what is left of `missing` is what it lacks.
void excuse_cpu(CheckResult& c) {
  c.missing_kernels.erase(std::remove(c.missing_kernels.begin(), c.missing_kernels.end(), "CPU"),
                          c.missing_kernels.end());
}

// An op whose kernels are what its library delivers: it passes, saying why.
void pass_by_design(CellResult& cell, CheckResult& c, const std::string& why) {
  c.status = Status::pass;
  c.message = fmt::format("{} has {} kernels ({})", qualified(cell, c), fmt::join(c.kernels, ", "), why);
  c.diagnosis.reset();
}

void pass_as_cuda_only(CellResult& cell, CheckResult& c, const std::string& where) {
  pass_by_design(cell, c, fmt::format("no CPU kernel, as its library promises: CUDA-only by design — {} it has a "
                                      "CUDA kernel and no CPU kernel, and the build holds device code", where));
}

// A host-side op of a CUDA library (xformers 0.0.28.post3's _sparse24_pack_mask: its only kernel is
// TORCH_LIBRARY_IMPL(xformers, CPU, …), and its users move the result to the GPU themselves).
void pass_as_cpu_only(CellResult& cell, CheckResult& c) {
  pass_by_design(cell, c, "no CUDA kernel: a CPU-only op of a library whose build holds device code, in this cell, "
                          "its library's reference — what the torch it was built for shows is what it delivers");
}

// In the reference cell itself: an op with a CUDA kernel and no CPU one, in a build with device
// code, is CUDA-only by design (the mirror of a CPU variant), and one with a CPU kernel and no
// CUDA one a CPU-only op of that library; an op with neither stays red.
void judge_reference(CellResult& ref) {
  for (auto& c : ref.checks) {
    if (!judgeable(c)) continue;
    if (contains(c.missing_kernels, "CPU") && cuda_only_by_design(ref, c.kernels)) {
      excuse_cpu(c);
      if (c.missing_kernels.empty()) pass_as_cuda_only(ref, c, "in this cell (its library's reference)");
    } else if (c.missing_kernels == std::vector<std::string>{"CUDA"} && contains(c.kernels, "CPU") &&
               has_cuda(ref) && holds_device_code(ref)) {
      pass_as_cpu_only(ref, c);
    } else if (!contains(c.kernels, "CPU") && !contains(c.kernels, "CUDA") && !contains(c.kernels, "Autograd")) {
      // Defined, never implemented for a backend in the library's own build (xformers
      // 0.0.28.post3 keeps the schema of efficient_attention_forward_cutlass and drops its sources
      // for torch's own kernel, setup.py:397-406; fbgemm-gpu-cpu keeps new_managed_tensor's schema
      // and Meta kernel, a CUDA function): no kernel is lost, none was built; calling it raises.
      c.status = Status::skip;
      c.message = c.kernels.empty()
                      ? fmt::format("{}: a schema with no kernel for any dispatch key in this cell, its library's "
                                    "reference: defined but not implemented in this build (calling it raises)",
                                    qualified(ref, c))
                      : fmt::format("{}: a schema with only {} kernels and none for a backend in this cell, its "
                                    "library's reference: defined but not implemented in this build (calling it "
                                    "raises)",
                                    qualified(ref, c), fmt::join(c.kernels, ", "));
      c.diagnosis = Diagnosis{"schema_without_kernel", c.message,
                              "implement it (TORCH_LIBRARY_IMPL) or drop its m.def, if its users are not meant to "
                              "call it", c.diagnosis->repro, ""};
    }
  }
}

// Kernels that sit under other keys than the reference's: still red, with the cause said once per
// library (the verdict groups the results by their diagnosis).
void mark_swapped(CellResult& cell, CheckResult& c, const KeySwap& swap, const std::string& ref_name) {
  const std::string summary = swap_summary(swap, ref_name, namespace_of(cell, c));
  c.message = fmt::format("{}: its {}", qualified(cell, c), summary);
  c.diagnosis = Diagnosis{kKernelsUnderOtherKeys, summary,
                          "install the release of the library built for this torch (or this release's own torch): "
                          "a binary registers its kernels under the dispatch keys of the torch it was compiled "
                          "against",
                          c.diagnosis->repro, fmt::format("kernels here: {}", fmt::join(c.kernels, ", "))};
}

void judge_op(CellResult& cell, CheckResult& c, const CellResult& ref, const std::string& ref_name) {
  const std::vector<std::string>* has = reference_kernels(ref, c.op);
  if (!has) return;
  if (const auto swap = has_cuda(cell) ? keys_swapped(*has, c.kernels) : std::nullopt) {
    mark_swapped(cell, c, *swap, ref_name);
    return;
  }
  const bool cuda_only = cuda_only_by_design(ref, *has);
  if (cuda_only) excuse_cpu(c);
  if (cuda_only && c.missing_kernels.empty()) {
    if (has_cuda(cell)) {
      pass_as_cuda_only(cell, c, "in " + ref_name);
      return;
    }
    // A runtime without CUDA cannot show a CUDA kernel: nothing to judge, said once (the verdict).
    c.status = Status::skip;
    c.message = fmt::format("{} (in {} it has a CUDA kernel and no CPU kernel); this runtime has no CUDA, so its CUDA "
                            "kernel cannot be seen; measured: {}", kCudaOnlyUnobservable, ref_name, c.message);
    c.diagnosis.reset();
    return;
  }
  std::vector<std::string> inherited, lost;
  // What the cell's own promise (declared, or a CPU variant's) already excuses is not missing.
  for (const auto& key : c.missing_kernels)
    // A CPU reference cannot say whether the library has CUDA kernels.
    (contains(*has, key) || (key == "CUDA" && !has_cuda(ref)) ? lost : inherited).push_back(key);
  if (lost.empty()) {
    c.status = Status::pass;
    c.message += fmt::format(" — as in {}, where it has no {} kernel either: not a promise of the library "
                             "(the reference cell judges it)", ref_name, fmt::join(inherited, ", "));
    c.diagnosis.reset();
  } else if (std::any_of(lost.begin(), lost.end(), [&](const std::string& k) { return contains(*has, k); })) {
    if (cuda_only) c.message = fmt::format("{}: no {} kernel", qualified(cell, c), fmt::join(c.missing_kernels, ", "));
    c.message += fmt::format(" — {} has it: lost here{}", ref_name,
                             cuda_only ? " (no CPU kernel there either: CUDA-only by design)" : "");
  }
}

void judge_against(CellResult& cell, const CellResult& ref, const std::string& why) {
  const std::string ref_name = reference_name(ref, why);
  for (auto& c : cell.checks)
    if (judgeable(c)) judge_op(cell, c, ref, ref_name);
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
  std::vector<const CellResult*> accepted, pinned_line;
  if (wheel) {
    for (const CellResult* r : works) {
      if (passed(*r, "wheel")) accepted.push_back(r);
      else if (on_pinned_line(*r)) pinned_line.push_back(r);
    }
  }
  // The torch the wheel was built for, the nearest the cells come to it, else the newest.
  const std::pair<const std::vector<const CellResult*>*, const char*> pools[] = {
      {&accepted, "a torch its wheel's Requires-Dist accepts, the newest where it loads"},
      {&pinned_line, "the torch release its wheel was built for, by its Requires-Dist pin"},
      {&works, "the newest torch where it builds and loads"}};
  for (const auto& [pool, why] : pools)
    if (!pool->empty()) return {*std::min_element(pool->begin(), pool->end(), torch_newer), why};
  return {};
}

void apply_reference_promises(std::vector<CellResult>& cells) {
  std::map<std::string, std::vector<const CellResult*>> libraries;
  for (const auto& r : cells)
    if (!subject_of(r).empty()) libraries[subject_of(r)].push_back(&r);
  for (const auto& [label, members] : libraries) {
    const ReferenceCell ref = reference_cell(members);
    if (!ref.cell) continue;
    // The reference's own CUDA-only ops hold with one cell too; the rest compares cells.
    for (auto& r : cells) {
      if (&r == ref.cell) judge_reference(r);
      else if (subject_of(r) == label) judge_against(r, *ref.cell, ref.why);
      else continue;
      settle_status(r);  // a red its reference excuses no longer fails the cell
    }
  }
}

}  // namespace opmatrix
