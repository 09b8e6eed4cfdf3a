// What a CUDA-only library's cells come to (report/library_findings.h over results judged by
// checks/load/reference_promises.h): its reference works, what every op shares is said once.
#include <gtest/gtest.h>

#include "../results/check_result_fixture.h"
#include "one_limit.h"
#include "checks/load/reference_kernels.h"
#include "checks/load/reference_promises.h"
#include "report/library_findings.h"
#include "report/verdict.h"

namespace opmatrix {
namespace {

// An op's registration and meta results as the load step writes them, after the cell rules.
void add_op(CellResult& r, const std::string& op, std::vector<std::string> kernels) {
  const bool cuda_cell = r.cell.value("cuda", "none") != "none";
  auto has = [&](const char* k) { return std::find(kernels.begin(), kernels.end(), k) != kernels.end(); };
  CheckResult reg = check_result(op, "registration", Status::pass, "xformers::" + op + " has kernels");
  reg.kernels = kernels;
  if (!has("CPU")) reg.missing_kernels.push_back("CPU");
  if (cuda_cell && !has("CUDA")) reg.missing_kernels.push_back("CUDA");
  if (!reg.missing_kernels.empty()) {
    reg.status = Status::fail;
    reg.message = "xformers::" + op + ": no " + reg.missing_kernels.front() + " kernel";
    reg.diagnosis = Diagnosis{"not_registered", "users get Could not run", "register it", "", ""};
  }
  r.checks.push_back(reg);
  CheckResult meta = check_result(op, "meta", has("Meta") ? Status::pass : Status::fail);
  meta.message = "xformers::" + op + (has("Meta") ? " has a Meta kernel" : " has no Meta kernel: FakeTensor, torch.compile "
                                                  "and export cannot trace it (judged by presence only: nothing ran "
                                                  "its fake kernel here)");
  if (!has("Meta")) meta.diagnosis = Diagnosis{"no_meta_kernel", meta.message, "register a Meta kernel", "", ""};
  r.checks.push_back(meta);
}

CellResult cell(const std::string& id, const std::string& torch, const std::string& cuda) {
  CellResult r;
  r.cell = {{"id", id}, {"torch", torch}, {"cuda", cuda},
            {"project", {{"label", "pypi xformers"}, {"wheel", "xformers"}, {"namespace", "xformers"}}}};
  r.checks = {check_result("", "build", Status::pass), check_result("", "load", Status::pass)};
  if (cuda != "none")
    r.checks.push_back(
        check_result("", "fatbin", Status::pass, "libxformers.so holds SASS sm_90 for sm_90", "", "9.0"));
  r.status = Status::pass;
  return r;
}

CellVerdict verdict_of(const std::vector<CellResult>& cells, const std::string& id) {
  for (const auto& r : cells)
    if (r.cell.value("id", "") == id) return assess(r);
  return {};
}

}  // namespace

// xformers 0.0.28.post3 in torch 2.5.1, its reference: CUDA kernels, some Meta, no CPU kernel.
TEST(LibraryFindings, ACudaOnlyReferenceWorksAndItsMissingMetaKernelsAreOneLimit) {
  std::vector<CellResult> cells = {cell("ref", "2.5.1", "12.4")};
  for (const char* op : {"fmha_fwd", "fmha_bwd"}) add_op(cells[0], op, {"CUDA", "Meta"});
  for (const char* op : {"rope", "swiglu", "sparse24", "tile"}) add_op(cells[0], op, {"CUDA"});
  apply_reference_promises(cells);
  const CellVerdict v = verdict_of(cells, "ref");
  expect_one_limit(v, "no Meta kernel for 4 of 6 ops");
  // The Meta results are still failing checks: the run fails on them until they are declared
  // (expect) or fake kernels are registered, as for any limit; the CPU ones no longer fail it.
  EXPECT_EQ(verdict_line(v, kTableItems),
            "◐ works with limits: no Meta kernel for 4 of 6 ops (rope, swiglu, sparse24, +1): judged by presence "
            "only; torch.compile / export of these need a fake kernel ‼ not as declared in matrix.yaml");
}

// xformers 0.0.27.post2, built for torch 2.4: in torch 2.5.1 its CUDA kernels sit under CPU.
TEST(LibraryFindings, KernelsUnderOtherKeysAreOneBreakNamingTheOpsAndTheReference) {
  std::vector<CellResult> cells = {cell("t24", "2.4.1", "12.4"), cell("t25", "2.5.1", "12.4")};
  cells[0].cell["reference"] = true;
  for (const char* op : {"a", "b", "c", "d"}) add_op(cells[0], op, {"CUDA", "Meta"});
  add_op(cells[0], "e", {"CUDA", "Meta"});
  for (const char* op : {"a", "b", "c", "d"}) add_op(cells[1], op, {"CPU"});
  add_op(cells[1], "e", {"Meta"});  // lost, not moved: its own red
  apply_reference_promises(cells);
  const CellVerdict v = verdict_of(cells, "t25");
  EXPECT_EQ(v.verdict, Verdict::broken);
  EXPECT_FALSE(v.known_broken);
  ASSERT_EQ(v.broken.size(), 2u);
  EXPECT_EQ(v.broken[0],
            "4 of 5 ops (a, b, c, +1): their kernels register under CPU here where the reference cell t24 (torch "
            "2.4.1, declared in matrix.yaml) has them under CUDA and Meta: registered under other dispatch keys "
            "than they were written for (a binary built for another torch) — users get \"Could not run "
            "'xformers::…' with arguments from the 'CUDA' backend\"");
  EXPECT_EQ(v.broken[1].rfind("e · registration: xformers::e: no CUDA kernel — the reference cell t24", 0), 0u)
      << v.broken[1];
  EXPECT_EQ(verdict_of(cells, "t24").verdict, Verdict::works);
}

TEST(LibraryFindings, ACpuRuntimeOfACudaOnlyLibraryHasNothingToJudge) {
  std::vector<CellResult> cells = {cell("ref", "2.5.1", "12.4"), cell("cpu", "2.5.1", "none")};
  cells[0].cell["reference"] = true;
  for (const char* op : {"a", "b"}) {
    add_op(cells[0], op, {"CUDA", "Meta"});
    add_op(cells[1], op, {"Meta"});
  }
  apply_reference_promises(cells);
  const CellVerdict all = verdict_of(cells, "cpu");
  EXPECT_EQ(all.verdict, Verdict::not_run);
  EXPECT_EQ(all.not_run, "2 of 2 ops (a, b) not checked here: CUDA-only by design (their reference cell has CUDA "
                         "kernels and no CPU kernels), and this runtime has no CUDA to show them");
  add_op(cells[0], "cpu_op", {"CPU", "CUDA", "Meta"});
  add_op(cells[1], "cpu_op", {"CPU", "Meta"});
  expect_one_limit(verdict_of(cells, "cpu"), "2 of 3 ops (a, b) not checked here");
}

TEST(LibraryFindings, OnlyResultsTheyDescribeArePartOfThem) {
  CheckResult fake = check_result("op", "meta", Status::fail, "lib::op cannot run on fake tensors");
  fake.diagnosis = Diagnosis{"no_fake_kernel", "", "", "", ""};
  EXPECT_FALSE(part_of_library_finding(fake)) << "a fake kernel that ran and failed is the op's own limit";
  CheckResult tv = check_result("torchvision::nms", "meta", Status::fail);
  tv.diagnosis = Diagnosis{"no_meta_kernel", "", "", "", ""};
  EXPECT_FALSE(part_of_library_finding(tv)) << "torchvision's ops are another library";
  CheckResult passed = check_result("op", "registration", Status::pass);
  passed.diagnosis = Diagnosis{kKernelsUnderOtherKeys, "", "", "", ""};
  EXPECT_FALSE(part_of_library_finding(passed));
}

}  // namespace opmatrix
