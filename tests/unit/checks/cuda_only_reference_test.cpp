// A CUDA-only library judged by its reference cell (checks/load/reference_kernels.h): an op with
// a CUDA kernel and no CPU kernel, in a reference whose build holds device code, is CUDA-only by
// design in every cell; a kernel the reference has is still lost elsewhere; kernels that moved
// to other dispatch keys are named as such. Shaped after xformers 0.0.27.post2 / 0.0.28.post3.
#include <gtest/gtest.h>

#include "../results/check_result_fixture.h"
#include "checks/load/reference_kernels.h"
#include "checks/load/reference_promises.h"

namespace opmatrix {
namespace {

// registration of xformers::`op` as load_judge.cpp writes it: a fail where CPU (or, in a CUDA
// cell, CUDA) is missing.
CheckResult registration(const std::string& op, std::vector<std::string> kernels, bool cuda_cell) {
  CheckResult c = check_result(op, "registration", Status::pass, "xformers::" + op + " has kernels");
  c.kernels = kernels;
  auto has = [&](const char* k) { return std::find(kernels.begin(), kernels.end(), k) != kernels.end(); };
  if (!has("CPU")) c.missing_kernels.push_back("CPU");
  if (cuda_cell && !has("CUDA")) c.missing_kernels.push_back("CUDA");
  if (!c.missing_kernels.empty()) {
    c.status = Status::fail;
    c.message = "xformers::" + op + ": no " + (c.missing_kernels.size() == 2 ? "CPU, CUDA" : c.missing_kernels[0]) +
                " kernel";
    c.diagnosis = Diagnosis{"not_registered", "users get Could not run", "register the kernel", "repro", ""};
  }
  return c;
}

// A wheel cell of xformers; in a CUDA cell with `device_code`, fatbin found SASS.
CellResult cell(const std::string& id, const std::string& torch, const std::string& cuda, bool device_code = true) {
  CellResult r;
  r.cell = {{"id", id}, {"torch", torch}, {"cuda", cuda},
            {"project", {{"label", "pypi xformers"}, {"wheel", "xformers==0.0.28.post3"}, {"namespace", "xformers"}}}};
  r.checks = {check_result("", "build", Status::pass), check_result("", "load", Status::pass)};
  if (cuda != "none")
    r.checks.push_back(check_result("", "fatbin", device_code ? Status::pass : Status::fail,
                                    device_code ? "libxformers.so holds SASS sm_90 for sm_90"
                                                : "libxformers.so holds no code for sm_90 (SASS: none; PTX: none)",
                                    "", "9.0"));
  return r;
}

// xformers::fmha_fwd registered with `ref_kernels` in the reference cell (the first) and with
// `kernels` in the other, then judged: the other cell's registration result.
CheckResult judged_fmha_fwd(std::vector<CellResult> cells, const std::vector<std::string>& ref_kernels,
                            const std::vector<std::string>& kernels) {
  cells[0].cell["reference"] = true;
  cells[0].checks.push_back(registration("fmha_fwd", ref_kernels, true));
  cells[1].checks.push_back(registration("fmha_fwd", kernels, cells[1].cell.value("cuda", "none") != "none"));
  apply_reference_promises(cells);
  return cells[1].checks.back();
}

bool has_text(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

}  // namespace

TEST(CudaOnlyReference, TheReferenceOfACudaOnlyLibraryIsNotBrokenForLackingCpuKernels) {
  std::vector<CellResult> cells = {cell("ref", "2.5.1", "12.4"), cell("old", "2.4.1", "12.4")};
  cells[0].checks.push_back(registration("fmha_fwd", {"CUDA", "Meta"}, true));
  cells[0].checks.push_back(registration("fmha_bwd", {"CUDA"}, true));
  cells[0].checks.push_back(registration("schema_only", {}, true));  // no kernel at all: a limit
  cells[0].checks.push_back(registration("meta_only", {"Meta"}, true));  // fbgemm-gpu-cpu's new_managed_tensor
  cells[0].cell["reference"] = true;
  settle_status(cells[0]);  // as the run wrote it: fail, not as expected
  ASSERT_EQ(cells[0].status, Status::fail);
  apply_reference_promises(cells);
  const CheckResult& fwd = cells[0].checks[3];
  EXPECT_EQ(fwd.status, Status::pass) << fwd.message;
  EXPECT_FALSE(fwd.diagnosis);
  EXPECT_TRUE(fwd.missing_kernels.empty());
  EXPECT_EQ(fwd.message, "xformers::fmha_fwd has CUDA, Meta kernels (no CPU kernel, as its library promises: "
                         "CUDA-only by design — in this cell (its library's reference) it has a CUDA kernel and no "
                         "CPU kernel, and the build holds device code)");
  EXPECT_EQ(cells[0].checks[4].status, Status::pass);
  // No kernel at all: a schema its own build never implements (a limit there, schema_without_kernel).
  EXPECT_EQ(cells[0].checks[5].status, Status::skip) << cells[0].checks[5].message;
  EXPECT_EQ(cells[0].checks[6].status, Status::skip) << cells[0].checks[6].message;
  EXPECT_NE(cells[0].checks[6].message.find("a schema with only Meta kernels and none for a backend"), std::string::npos);
  // The cell as a whole, as `opmatrix run` exits and the report says "as declared".
  EXPECT_EQ(cells[0].status, Status::pass);
  EXPECT_TRUE(cells[0].meets_expectations);
}

TEST(CudaOnlyReference, WithoutDeviceCodeInItsBuildTheReferenceIsJudgedAsToday) {
  std::vector<CellResult> cells = {cell("ref", "2.5.1", "12.4", false)};
  cells[0].checks.push_back(registration("fmha_fwd", {"CUDA", "Meta"}, true));
  apply_reference_promises(cells);
  EXPECT_EQ(cells[0].checks.back().status, Status::fail);
  EXPECT_EQ(cells[0].checks.back().message, "xformers::fmha_fwd: no CPU kernel");
}

TEST(CudaOnlyReference, OneCellIsItsOwnReference) {
  std::vector<CellResult> cells = {cell("only", "2.5.1", "12.4")};
  cells[0].checks.push_back(registration("fmha_fwd", {"CUDA", "Meta"}, true));
  apply_reference_promises(cells);
  EXPECT_EQ(cells[0].checks.back().status, Status::pass) << cells[0].checks.back().message;
}

TEST(CudaOnlyReference, AnotherTorchWithoutTheCpuKernelPassesAndOneThatLostItsCudaKernelIsRed) {
  std::vector<CellResult> cells = {cell("ref", "2.5.1", "12.4"), cell("next", "2.6.0", "12.6")};
  cells[0].cell["reference"] = true;
  cells[0].checks.push_back(registration("fmha_fwd", {"CUDA", "Meta"}, true));
  cells[0].checks.push_back(registration("fmha_bwd", {"CUDA"}, true));
  cells[1].checks.push_back(registration("fmha_fwd", {"CUDA", "Meta"}, true));
  cells[1].checks.push_back(registration("fmha_bwd", {"Meta"}, true));
  apply_reference_promises(cells);
  const CheckResult& kept = cells[1].checks[3];
  EXPECT_EQ(kept.status, Status::pass);
  EXPECT_TRUE(has_text(kept.message, "CUDA-only by design — in the reference cell ref (torch 2.5.1, declared in "
                                     "matrix.yaml) it has a CUDA kernel and no CPU kernel"))
      << kept.message;
  const CheckResult& lost = cells[1].checks[4];
  EXPECT_EQ(lost.status, Status::fail);
  EXPECT_EQ(lost.missing_kernels, std::vector<std::string>{"CUDA"});
  EXPECT_EQ(lost.message, "xformers::fmha_bwd: no CUDA kernel — the reference cell ref (torch 2.5.1, declared in "
                          "matrix.yaml) has it: lost here (no CPU kernel there either: CUDA-only by design)");
  ASSERT_TRUE(lost.diagnosis);
  EXPECT_EQ(lost.diagnosis->kind, "not_registered");
}

TEST(CudaOnlyReference, ARuntimeWithoutCudaCannotShowTheCudaKernel) {
  const CheckResult unseen =
      judged_fmha_fwd({cell("ref", "2.5.1", "12.4"), cell("cpu", "2.5.1", "none")}, {"CUDA", "Meta"}, {"Meta"});
  EXPECT_EQ(unseen.status, Status::skip);
  EXPECT_EQ(unseen.message.rfind(kCudaOnlyUnobservable, 0), 0u) << unseen.message;
  EXPECT_TRUE(has_text(unseen.message, "this runtime has no CUDA, so its CUDA kernel cannot be seen")) << unseen.message;
  EXPECT_FALSE(unseen.diagnosis);
}

// xformers 0.0.27.post2: built for torch 2.4; in torch 2.5.1 the same .so loads and its CUDA
// kernels appear under CPU, the Meta ones gone.
TEST(CudaOnlyReference, KernelsUnderOtherKeysAreNamedAsSuchAndStayRed) {
  const CheckResult moved =
      judged_fmha_fwd({cell("t24", "2.4.1", "12.4"), cell("t25", "2.5.1", "12.4")}, {"CUDA", "Meta"}, {"CPU"});
  EXPECT_EQ(moved.status, Status::fail);
  EXPECT_EQ(moved.message,
            "xformers::fmha_fwd: its kernels register under CPU here where the reference cell t24 (torch 2.4.1, "
            "declared in matrix.yaml) has them under CUDA and Meta: registered under other dispatch keys than they "
            "were written for (a binary built for another torch) — users get \"Could not run 'xformers::…' with "
            "arguments from the 'CUDA' backend\"");
  ASSERT_TRUE(moved.diagnosis);
  EXPECT_EQ(moved.diagnosis->kind, kKernelsUnderOtherKeys);
  EXPECT_EQ(moved.diagnosis->repro, "repro");
}

// Its wheel pins torch==2.4.0, which neither torch 2.4.1 nor 2.5.1 meets: the 2.4 cell is still
// the torch it was built for, not the newest (2.5.1, where it loads and its kernels moved).
TEST(CudaOnlyReference, AWheelPinnedToAnotherPatchReleaseHasItsReferenceOnThatRelease) {
  std::vector<CellResult> cells = {cell("t24", "2.4.1", "12.4"), cell("t25", "2.5.1", "12.4")};
  for (auto& r : cells) {
    CheckResult wheel = check_result("", "wheel", Status::fail,
                                     "xformers.whl requires torch==2.4.0, but this cell's torch is " +
                                         r.cell.value("torch", ""));
    wheel.diagnosis = Diagnosis{"torch_requirement", wheel.message, "", "", "Requires-Dist: torch==2.4.0"};
    r.checks.push_back(wheel);
  }
  cells[0].checks.push_back(registration("fmha_fwd", {"CUDA", "Meta"}, true));
  cells[1].checks.push_back(registration("fmha_fwd", {"CPU"}, true));
  const ReferenceCell ref = reference_cell({&cells[0], &cells[1]});
  EXPECT_EQ(ref.cell, &cells[0]);
  EXPECT_EQ(ref.why, "the torch release its wheel was built for, by its Requires-Dist pin");
  apply_reference_promises(cells);
  ASSERT_TRUE(cells[1].checks.back().diagnosis);
  EXPECT_EQ(cells[1].checks.back().diagnosis->kind, kKernelsUnderOtherKeys);
  EXPECT_EQ(cells[0].checks.back().status, Status::pass);
}

TEST(CudaOnlyReference, ALibraryWithCpuKernelsInItsReferenceIsJudgedAsBefore) {
  std::vector<CellResult> cells = {cell("ref", "2.6.0", "12.4"), cell("old", "2.5.1", "12.4")};
  cells[0].checks.push_back(registration("both", {"CPU", "CUDA", "Meta"}, true));
  cells[0].checks.push_back(registration("cpu_op", {"CPU", "Meta"}, true));
  cells[1].checks.push_back(registration("both", {"CUDA", "Meta"}, true));
  cells[1].checks.push_back(registration("cpu_op", {"CPU", "Meta"}, true));
  apply_reference_promises(cells);
  // A CPU-only op of a library whose build holds device code: what its reference shows, no red.
  EXPECT_EQ(cells[0].checks[4].status, Status::pass) << cells[0].checks[4].message;
  EXPECT_EQ(cells[1].checks[3].status, Status::fail);
  EXPECT_EQ(cells[1].checks[3].message, "xformers::both: no CPU kernel — the reference cell ref (torch 2.6.0, the "
                                        "newest torch where it builds and loads) has it: lost here");
  EXPECT_EQ(cells[1].checks[4].status, Status::pass);
  EXPECT_TRUE(has_text(cells[1].checks[4].message, "(the reference cell judges it)"));
}

TEST(CudaOnlyReference, ReadingTheResultsAgainChangesNothing) {
  std::vector<CellResult> cells = {cell("ref", "2.5.1", "12.4"), cell("next", "2.6.0", "12.6"),
                                   cell("cpu", "2.6.0", "none")};
  cells[0].cell["reference"] = true;
  cells[0].checks.push_back(registration("a", {"CUDA", "Meta"}, true));
  cells[1].checks.push_back(registration("a", {"Meta"}, true));
  cells[2].checks.push_back(registration("a", {"Meta"}, false));
  apply_reference_promises(cells);
  const std::vector<CellResult> once = cells;
  apply_reference_promises(cells);  // a report JSON read back holds results already judged
  for (std::size_t i = 0; i < cells.size(); ++i) EXPECT_EQ(cells[i].checks.back().message, once[i].checks.back().message);
}

TEST(ReferenceKernels, KeysSwappedNeedsCudaGoneAndCpuAppeared) {
  const auto swap = keys_swapped({"CUDA", "Meta", "Autograd"}, {"CPU", "Autograd"});
  ASSERT_TRUE(swap);
  EXPECT_EQ(swap->gone, (std::vector<std::string>{"CUDA", "Meta"}));
  EXPECT_EQ(swap->appeared, std::vector<std::string>{"CPU"});
  EXPECT_FALSE(keys_swapped({"CUDA", "Meta"}, {"Meta"}));
  EXPECT_FALSE(keys_swapped({"CPU", "CUDA"}, {"CPU"}));
  EXPECT_EQ(and_list({"CUDA", "Meta", "Autograd"}), "CUDA, Meta and Autograd");
}

}  // namespace opmatrix

namespace opmatrix {

// The mirror in the reference cell: a host-side op of a CUDA library (xformers 0.0.28.post3's
// _sparse24_pack_mask, registered for CPU only in csrc/sparse24/meta_utils.cu) is what the torch
// it was built for shows: no red; without device code in the build it stays judged as today.
TEST(CudaOnlyReference, ACpuOnlyOpOfACudaLibraryIsNotBrokenInItsReference) {
  std::vector<CellResult> cells = {cell("ref", "2.5.1", "12.4")};
  cells[0].cell["reference"] = true;
  cells[0].checks.push_back(registration("_sparse24_pack_mask", {"CPU"}, true));
  apply_reference_promises(cells);
  const CheckResult& pack = cells[0].checks.back();
  EXPECT_EQ(pack.status, Status::pass) << pack.message;
  EXPECT_TRUE(has_text(pack.message, "a CPU-only op of a library whose build holds device code")) << pack.message;
  std::vector<CellResult> no_device = {cell("ref", "2.5.1", "12.4", /*device_code=*/false)};
  no_device[0].cell["reference"] = true;
  no_device[0].checks.push_back(registration("_sparse24_pack_mask", {"CPU"}, true));
  apply_reference_promises(no_device);
  EXPECT_EQ(no_device[0].checks.back().status, Status::fail);
}

}  // namespace opmatrix
