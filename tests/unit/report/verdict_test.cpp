// The verdict rules (report/verdict.h) on hand-made results: what breaks a cell, what only
// limits it, what "not executed here" means, and that expectations do not change either.
#include <gtest/gtest.h>

#include "../results/check_result_fixture.h"
#include "one_limit.h"
#include "report/extra_tables.h"
#include "report/render.h"
#include "report/results_set.h"
#include "checks/load/load_judge.h"
#include "report/verdict.h"

namespace opmatrix {

namespace {

CheckResult result(const std::string& op, const std::string& check, Status s, const std::string& message = "",
                   const std::string& arch = "") {
  return check_result(op, check, s, message, "", arch);
}

CellResult cell(const std::string& cuda, std::vector<CheckResult> checks, bool meets = true) {
  CellResult r;
  r.cell = {{"id", "c"}, {"torch", "2.5.1"}, {"torchvision", "0.20.1"}, {"cuda", cuda}};
  r.checks = std::move(checks);
  r.status = Status::pass;
  r.meets_expectations = meets;
  return r;
}

}  // namespace

TEST(Verdict, EveryPassWorks) {
  const CellVerdict v = assess(cell("none", {result("nms", "correctness", Status::pass)}));
  EXPECT_EQ(v.verdict, Verdict::works);
  EXPECT_EQ(verdict_line(v, 3), "✔ works");
}

// The three cells the README marked "expected failure" alike: an arch nvcc cannot target and
// kernels no GPU ran are limits, named; the cell still works.
TEST(Verdict, DeclaredArchLimitsAndNoGpuAreLimitsNotFailures) {
  CheckResult arch = result("", "arch", Status::xfail, "nvcc 12.4 cannot target sm_100", "10.0");
  arch.expected_reason = "CUDA 12.4 stops at sm_90";
  const CellVerdict v = assess(cell("12.4", {result("nms", "correctness", Status::pass), arch,
                                             result("", "nvrtc", Status::xfail, "", "12.0"),
                                             result("deform_conv2d", "device", Status::skip, "no GPU visible")}));
  EXPECT_EQ(v.verdict, Verdict::works_with_limits);
  ASSERT_EQ(v.limits.size(), 2u);
  EXPECT_EQ(v.limits[0], "no sm_100, sm_120 support");
  EXPECT_EQ(v.limits[1], "CUDA kernels not executed (no GPU here)");
  EXPECT_EQ(verdict_line(v, 3), "◐ works with limits: no sm_100, sm_120 support; CUDA kernels not executed (no GPU here)");
}

// A package whose libraries target different GPUs by design (torchao 0.18.0: _C_cutlass_90a
// holds sm_90 only, _C_mxfp8 sm_100 and sm_120 PTX): an arch one library holds code for is served
// in part, never "no support"; an arch none holds is.
TEST(Verdict, AnArchSomeLibraryHoldsIsServedInPartNotUnsupported) {
  const CellVerdict v = assess(cell("13.2", {result("", "fatbin", Status::fail, "_C_mxfp8.so holds no code for sm_90", "9.0"),
                                             result("", "fatbin", Status::pass, "_C_cutlass_90a.so holds SASS sm_90", "9.0"),
                                             result("", "fatbin", Status::fail, "_C_mxfp8.so holds no code for sm_80", "8.0"),
                                             result("", "fatbin", Status::fail, "_C_cutlass_90a.so holds no code for sm_80", "8.0")}));
  EXPECT_EQ(v.verdict, Verdict::works_with_limits);
  EXPECT_EQ(v.limits, (std::vector<std::string>{"no sm_80 support",
                                                "sm_90 code in some of its libraries only (each library's archs: fatbin)"}));
}

// nvcc 12.4 beside torch 2.10 (CUDA 12.8): it cannot target sm_100 or sm_120, but our build keeps
// PTX of sm_90, which the driver JIT-compiles there: those archs run, slowly at first, in every
// library — not "code in some of its libraries only" (what the torch 2.10 cell said). An arch one
// library reaches by PTX while another has no code for it stays served in part.
TEST(Verdict, AnArchEveryLibraryReachesByPtxIsJitCompiledNotServedInPart) {
  const std::string jit = " that the driver JIT-compiles to it (slow first launch)";
  CheckResult arch = result("", "arch", Status::xfail, "nvcc 12.4 cannot target sm_100", "10.0");
  arch.expected_reason = "the nvcc is CUDA 12.4's, which cannot target sm_100";
  const CellVerdict v = assess(cell("12.8", {arch,
      result("", "fatbin", Status::pass, "libopmatrix_ops.so holds no SASS for sm_100, but PTX sm_90" + jit, "10.0"),
      result("", "fatbin", Status::pass, "libopmatrix_ops.so holds SASS sm_90 for sm_90", "9.0")}));
  EXPECT_EQ(v.verdict, Verdict::works_with_limits);
  EXPECT_EQ(v.limits, (std::vector<std::string>{
                          "no sm_100 SASS, only PTX JIT-compiled by the driver (slow first launch)"}));

  const CellVerdict mixed = assess(cell("12.8", {
      result("", "fatbin", Status::pass, "_C.so holds no SASS for sm_100, but PTX sm_90" + jit, "10.0"),
      result("", "fatbin", Status::fail, "_D.so holds no code for sm_100", "10.0")}));
  EXPECT_EQ(mixed.limits, (std::vector<std::string>{
                              "sm_100 code in some of its libraries only (each library's archs: fatbin)"}));
}

// A library linked to the GPU driver, on a machine without a GPU: nothing about its load is
// known here, so the cell is "not run", never "works" (cuequivariance-ops-torch in torch 2.15).
TEST(Verdict, ALibraryThatNeedsTheGpuDriverLeavesTheCellNotRun) {
  CheckResult load = result("", "load", Status::skip, "_ext.so not checked here: it links the NVIDIA driver's libcuda.so.1");
  load.diagnosis = Diagnosis{"needs_gpu_driver", load.message, "", "", ""};
  const CellVerdict v = assess(cell("13.2", {result("", "fetch", Status::pass), load,
                                             result("", "fatbin", Status::fail, "no sm_70 code", "7.0")}));
  EXPECT_EQ(v.verdict, Verdict::not_run);
}

// An import that compiles its CUDA code for the visible GPUs, on a machine with none (exllamav2):
// nothing of it is judged here either.
TEST(Verdict, AFirstUseCompileThatNeedsAVisibleGpuLeavesTheCellNotRun) {
  CheckResult import = result("", "load", Status::skip, "exllamav2 not checked here: its first import compiles its CUDA code");
  import.subtest = "import";
  import.diagnosis = Diagnosis{"jit_needs_visible_gpu", import.message, "", "", ""};
  const CellVerdict v = assess(cell("12.8", {result("", "fetch", Status::pass), import}));
  EXPECT_EQ(v.verdict, Verdict::not_run);
  EXPECT_EQ(v.not_run.rfind("load import exllamav2 not checked here", 0), 0u) << v.not_run;
}

// An import that reads a device folder this machine lacks (uccl 0.0.1.post4: /sys/class/infiniband/):
// nothing of it is judged here.
TEST(Verdict, AnImportLookingForADeviceThisMachineLacksLeavesTheCellNotRun) {
  CheckResult import = result("", "load", Status::skip, "uccl not checked here: its import reads /sys/class/infiniband/");
  import.subtest = "import";
  import.diagnosis = Diagnosis{"needs_device", import.message, "", "", ""};
  const CellVerdict v = assess(cell("12.1", {result("", "fetch", Status::pass), import}));
  EXPECT_EQ(v.verdict, Verdict::not_run);
}

// The same import without a CUDA toolkit, beside a CPU torch (exllamav3): a CUDA-only library.
TEST(Verdict, AFirstUseCudaCompileWithoutAToolkitLeavesTheCellNotRun) {
  CheckResult import = result("", "load", Status::skip, "exllamav3 not checked here: its first import compiles CUDA code");
  import.subtest = "import";
  import.diagnosis = Diagnosis{"jit_needs_cuda", import.message, "", "", ""};
  const CellVerdict v = assess(cell("none", {result("", "fetch", Status::pass), import}));
  EXPECT_EQ(v.verdict, Verdict::not_run);
}

// An import that needs AMD's ROCm (amd-aiter), beside a library subtest that is a limit (its JIT
// sources): nothing of it is judged, not run.
TEST(Verdict, AnImportThatNeedsRocmLeavesTheCellNotRun) {
  CheckResult import = result("", "load", Status::skip, "aiter not checked here: its import needs AMD's ROCm");
  import.subtest = "import";
  import.diagnosis = Diagnosis{"needs_rocm", import.message, "", "", ""};
  CheckResult jit = result("", "load", Status::skip, "a release that compiles its C++/CUDA code at first use");
  jit.diagnosis = Diagnosis{"compiled_at_first_use", jit.message, "", "", ""};
  const CellVerdict v = assess(cell("none", {result("", "fetch", Status::pass), jit, import}));
  EXPECT_EQ(v.verdict, Verdict::not_run);
}

TEST(Verdict, ASkippedGpuCheckInACpuCellIsNotALimit) {
  const CellVerdict v = assess(cell("none", {result("nms", "device", Status::skip, "the cell does not promise CUDA")}));
  EXPECT_EQ(v.verdict, Verdict::works);
}

// Declared or not, a torchvision without CUDA kernels is broken for its users: a declared break
// reads "known broken (declared)" with the declared reason.
TEST(Verdict, ADeclaredBreakIsKnownBrokenWithItsDeclaredReason) {
  CheckResult tv = result("", "torchvision", Status::xfail,
                          "torchvision::nms has no CUDA kernel although torch has CUDA 12.4: users get \"Could not "
                          "run 'torchvision::nms' with arguments from the 'CUDA' backend\" on every GPU");
  tv.expected_reason = "Debian's torchvision is built without CUDA";
  const CellVerdict v = assess(cell("12.4", {tv, result("", "arch", Status::xfail, "", "10.0")}));
  EXPECT_EQ(v.verdict, Verdict::broken);
  EXPECT_TRUE(v.as_declared);
  EXPECT_TRUE(v.known_broken);
  ASSERT_EQ(v.broken.size(), 1u);
  EXPECT_EQ(v.broken[0], "Debian's torchvision is built without CUDA");
  EXPECT_EQ(v.limits, std::vector<std::string>{"no sm_100 support"});
  // What breaks it is shown, not its limits.
  EXPECT_EQ(verdict_line(v, 3), "✘ known broken (declared): Debian's torchvision is built without CUDA");
}

// One undeclared break among declared ones: plainly broken, and it says what was measured.
TEST(Verdict, AnUndeclaredBreakIsNotKnown) {
  CheckResult tv = result("", "torchvision", Status::xfail, "torchvision::nms has no CUDA kernel");
  tv.expected_reason = "Debian's torchvision is built without CUDA";
  const CellVerdict v = assess(cell("12.4", {tv, result("nms", "correctness", Status::fail, "kept 3, expected 2")},
                                    /*meets=*/false));
  EXPECT_FALSE(v.known_broken);
  EXPECT_EQ(verdict_line(v, 3), "✘ broken: Debian's torchvision is built without CUDA; nms · correctness: kept 3, "
                                "expected 2 ‼ not as declared in matrix.yaml");
}

// A tool that ran and answered differently from eager is a wrong result: broken, not a limit.
TEST(Verdict, AWrongResultBreaksWhateverItsCheckWeighs) {
  CheckResult compiled = result("nms", "compile", Status::fail,
                                "torch.compile(fullgraph=True) output differs from eager on nms(f32[8,4], f32[8], 0.5): "
                                "output[1]: shape [8], expected [4]");
  compiled.diagnosis = Diagnosis{"compile_mismatch", compiled.message, "", "", ""};
  CheckResult untraceable = result("roi_align", "export", Status::fail, "torch.export.export fails");
  untraceable.diagnosis = Diagnosis{"export", untraceable.message, "", "", ""};
  const CellVerdict v = assess(cell("none", {compiled, untraceable}));
  EXPECT_TRUE(wrong_result(compiled));
  EXPECT_FALSE(wrong_result(untraceable));
  EXPECT_EQ(v.verdict, Verdict::broken);
  EXPECT_EQ(v.broken, std::vector<std::string>{"nms · compile: torch.compile(fullgraph=True) output differs from "
                                               "eager on nms(f32[8,4], f32[8], 0.5): output[1]: shape [8] …"});
  EXPECT_EQ(v.limits, std::vector<std::string>{"roi_align: export"});
}

TEST(Verdict, BehaviourFailuresAreLimitsPerOpAndAnUndeclaredOneIsMarked) {
  CheckResult faketensor = result("nms", "opcheck", Status::fail, "test_faketensor failed");
  faketensor.subtest = "test_faketensor";
  const CellVerdict v = assess(cell("none", {faketensor, result("nms", "compile", Status::fail),
                                             result("roi_align", "export", Status::xfail)},
                                    /*meets=*/false));
  EXPECT_EQ(v.verdict, Verdict::works_with_limits);
  EXPECT_EQ(v.limits, (std::vector<std::string>{"nms: opcheck test_faketensor, compile", "roi_align: export"}));
  EXPECT_FALSE(v.as_declared);
  EXPECT_EQ(verdict_line(v, 1),
            "◐ works with limits: nms: opcheck test_faketensor, compile (+1 more) ‼ not as declared in matrix.yaml");
}

// torch-blocksparse 1.1.1's triton 3.9 beside Debian's torch 2.6: opcheck failed at torchvision's
// nms for a reason that is no op's. The line says the cause, not "torchvision::nms: opcheck test_schema".
TEST(Verdict, ARequirementThatBreaksTorchIsSaidAsItselfNotAsTheOpsLimit) {
  CheckResult broke = result("torchvision::nms", "opcheck", Status::fail,
                             "triton 3.9.0, installed by the project's requirements, breaks torch's own machinery here: "
                             "ImportError: cannot import name 'AttrsDescriptor' from 'triton.compiler.compiler'");
  broke.subtest = "test_schema";
  broke.diagnosis = Diagnosis{"requirement_breaks_torch", broke.message, "bound it", "", ""};
  const CellVerdict v = assess(cell("none", {broke}));
  EXPECT_EQ(v.verdict, Verdict::works_with_limits);
  EXPECT_EQ(v.limits, std::vector<std::string>{"opcheck: triton 3.9.0, installed by the project's requirements, breaks "
                                               "torch's own machinery here: ImportError: cannot …"});
}

TEST(Verdict, AnOpBreakNamesTheOpAndCheck) {
  const CellVerdict v = assess(cell("none", {result("nms", "correctness", Status::fail, "kept boxes [0, 2], expected [0]")}));
  EXPECT_EQ(v.verdict, Verdict::broken);
  EXPECT_EQ(v.broken, std::vector<std::string>{"nms · correctness: kept boxes [0, 2], expected [0]"});
}

// A gtest failure starts with file:line; its own words are on its last line.
TEST(Verdict, ATestFailureShowsWhatTheTestSaid) {
  const CellVerdict v = assess(cell("none", {result("nms", "correctness", Status::fail,
                                                    "/src/cases/correctness/nms_correctness.cpp:31\nValue of: "
                                                    "keep.equal(expected)\n  Actual: false\nExpected: true\nseed 1 "
                                                    "threshold 0: kept 1, reference 34\n")}));
  EXPECT_EQ(v.broken, std::vector<std::string>{"nms · correctness: seed 1 threshold 0: kept 1, reference 34"});
}

// Test files that need a module the matrix does not install (a limiting skip, suite_needs_module): a
// limit of the matrix, named, never a pass; a plain skip of the same check stays nothing.
TEST(Verdict, ASuiteThatNeedsAModuleTheMatrixDoesNotInstallIsALimit) {
  CheckResult needs = result("", "tests", Status::skip,
                             "the suite needs the module 'cv2' (distribution opencv-python-headless) in 5 test files");
  needs.diagnosis = Diagnosis{"suite_needs_module", needs.message, "add it to test_requires", "", ""};
  const CellVerdict v = assess(cell("none", {result("", "tests", Status::pass, "12 tests pass"), needs,
                                             result("", "tests", Status::skip, "2 tests skipped by the suite")}));
  expect_one_limit(v, "tests: the suite needs the module 'cv2'");
}

TEST(Verdict, AnInfrastructureFailureIsNotRunNotBroken) {
  CheckResult build = result("", "build", Status::error, "podman build failed: network unreachable");
  build.diagnosis = Diagnosis{"image_error", "the image did not build", "", "", ""};
  const CellVerdict v = assess(cell("12.4", {build}));
  EXPECT_EQ(v.verdict, Verdict::not_run);
  EXPECT_NE(v.not_run.find("build not checked"), std::string::npos) << v.not_run;
}

// The build step that ran out of disk gets `fail` with disk_full (xformers 0.0.28.post3 in an atlas
// pair, while an image was being built beside it): the machine's, not the library's.
TEST(Verdict, AStepTheMachineFailedIsNotRunWhateverItsStatus) {
  CheckResult build = result("", "build", Status::fail, "the build step ran out of disk space");
  build.diagnosis = Diagnosis{"disk_full", "the build step ran out of disk space", "", "", ""};
  EXPECT_EQ(assess(cell("12.4", {build})).verdict, Verdict::not_run);
  build.diagnosis->kind = "compile_error";
  EXPECT_EQ(assess(cell("12.4", {build})).verdict, Verdict::broken);
}

TEST(Verdict, ASkippedCellSaysWhy) {
  CellResult r = cell("13.0", {result("", "cell", Status::skip, "runs in a GPU machine's own environment")});
  r.status = Status::skip;
  const CellVerdict v = assess(r);
  EXPECT_EQ(v.verdict, Verdict::not_run);
  EXPECT_EQ(verdict_line(v, 3), "○ not run: runs in a GPU machine's own environment");
}

TEST(Verdict, LongMessagesAreCutToTheirHeadline) {
  const std::string evidence(300, 'x');
  const CellVerdict v = assess(cell("none", {result("", "load", Status::fail, "libfoo.so: undefined symbol: " + evidence)}));
  // Never inside a token: a symbol, path or number that crosses the limit is left out whole.
  EXPECT_EQ(v.broken, std::vector<std::string>{"libfoo.so: undefined symbol: …"});
  const CellVerdict path = assess(cell("none", {result("", "build", Status::fail,
      "CUDA compile error in models/dino/ops/src/cuda/ms_deform_attn_cuda_forward_and_backward_at_every_feature_level.cu:65: "
      "no suitable conversion function")}));
  EXPECT_EQ(path.broken, std::vector<std::string>{"CUDA compile error in …"});
  // A location that ends before the limit stays whole, its line number included.
  const CellVerdict line = assess(cell("none", {result("", "build", Status::fail,
      "CUDA compile error in groundingdino/models/GroundingDINO/csrc/MsDeformAttn/ms_deform_attn_cuda.cu:65: no "
      "suitable conversion function from \"const at::DeprecatedTypeProperties\" to \"c10::ScalarType\" exists")}));
  EXPECT_EQ(line.broken, std::vector<std::string>{"CUDA compile error in groundingdino/models/GroundingDINO/csrc/"
                                                  "MsDeformAttn/ms_deform_attn_cuda.cu:65: no …"});
  // Cut at a word, never at the first ": " (the why comes after it).
  const CellVerdict cpu_only = assess(cell("13.2", {result("", "load", Status::fail,
      "CUDA promised, built CPU-only: no built library holds device code; every op runs on the CPU kernels and "
      "users of the GPU get Could not run")}));
  EXPECT_EQ(cpu_only.broken, std::vector<std::string>{"CUDA promised, built CPU-only: no built library holds device "
                                                      "code; every op runs on the CPU kernels and users …"});
}

// A library whose build makes no compiled extension in this runtime, by design, runs its Python
// fallback: that is a limit its users must know of, not silence and not a break.
TEST(Verdict, NoExtensionByDesignIsALimit) {
  CheckResult none = result("", "load", Status::skip,
                            "no compiled extension in this runtime, by design: setup.py:8 `if torch.cuda.is_available():` "
                            "builds it only there");
  none.diagnosis = Diagnosis{};
  none.diagnosis->kind = "no_extension_by_design";
  const CellVerdict v = assess(cell("none", {none, result("scale", "registration", Status::skip, "not checked here")}));
  expect_one_limit(v, "load: no compiled extension in this runtime, by design");
  // Any other skip stays silent.
  EXPECT_EQ(assess(cell("none", {result("", "load", Status::skip, "x")})).verdict, Verdict::works);
}

// A wheel that compiles its C++/CUDA code at first use: its import works, its ops are not measured
// by it; a limit, not a pass (gsplat read "works" in a CPU torch).
TEST(Verdict, CompiledAtFirstUseIsALimit) {
  CheckResult jit = result("", "load", Status::skip, "a release that compiles its C++/CUDA code at first use");
  jit.diagnosis = Diagnosis{};
  jit.diagnosis->kind = "compiled_at_first_use";
  expect_one_limit(assess(cell("none", {jit, result("", "load", Status::pass, "import gsplat: ok")})),
                   "load: a release that compiles its C++/CUDA code at first use");
}

// A wheel whose compiled code is a program its functions run (pnnx 20261020's pnnx/pnnx): the
// import is judged, the program not; a limit, not a pass.
TEST(Verdict, AProgramInPlaceOfALibraryIsALimit) {
  CheckResult program = result("", "load", Status::skip, "a release whose compiled code is a program, not a library");
  program.diagnosis = Diagnosis{};
  program.diagnosis->kind = "program_at_use";
  expect_one_limit(assess(cell("none", {program, result("", "load", Status::pass, "import pnnx: ok")})),
                   "load: a release whose compiled code is a program, not a library");
}

// A library built per torch with no build for this torch, which the working import did not load
// (torch-c-dlpack-ext 0.1.5 beside torch 2.14): a limit, not a pass and not a break.
TEST(Verdict, NoBuildThatTheWorkingImportDidNotLoadIsALimit) {
  CheckResult unused = result("", "load", Status::skip, "libaddon: no build for torch 2.14.1");
  unused.diagnosis = Diagnosis{};
  unused.diagnosis->kind = kNoBuildUnusedByImport;
  expect_one_limit(assess(cell("none", {unused, result("", "load", Status::pass, "import addon: ok")})),
                   "load: libaddon: no build for torch 2.14.1");
}

// pip's pure-Python fallback where the release's compiled wheels do not fit this Python (torchdata
// 0.7.1 in Python 3.13): the import works without the extension; a limit, not a pass.
TEST(Verdict, APureWheelInPlaceOfTheCompiledOnesIsALimit) {
  CheckResult fallback = result("", "load", Status::skip, "this runtime gets the release's pure-Python wheel");
  fallback.diagnosis = Diagnosis{};
  fallback.diagnosis->kind = "compiled_wheel_elsewhere";
  expect_one_limit(assess(cell("none", {fallback, result("", "load", Status::pass, "import torchdata: ok")})),
                   "load: this runtime gets the release's pure-Python wheel");
}

// A build that needs a visible GPU, in a cell whose build sees none: a CUDA part gated on one is a
// limit (the CPU part was judged); a setup.py that refuses outright leaves nothing to judge here.
TEST(Verdict, BuildsThatNeedAVisibleGpuAreNotCheckedWhereNoneIs) {
  CheckResult gated = result("", "build", Status::skip,
                             "CUDA kernels not checked here: setup.py builds them only where a GPU is visible");
  gated.diagnosis = Diagnosis{};
  gated.diagnosis->kind = "cuda_build_needs_gpu";
  expect_one_limit(assess(cell("13.2", {gated, result("op", "registration", Status::pass)})),
                   "build: CUDA kernels not checked here");
  CheckResult refused = result("", "build", Status::skip,
                               "not checked here: setup.py refuses to build without a visible GPU");
  refused.diagnosis = Diagnosis{};
  refused.diagnosis->kind = "setup_needs_gpu";
  const CellVerdict v = assess(cell("13.2", {result("", "requirements", Status::pass), refused}));
  EXPECT_EQ(v.verdict, Verdict::not_run);
  EXPECT_EQ(v.not_run, "build not checked here: setup.py refuses to build without a visible GPU");
}

TEST(Verdict, WorseOrdersBrokenLimitsWorksNotRun) {
  EXPECT_TRUE(worse(Verdict::broken, Verdict::works_with_limits));
  EXPECT_TRUE(worse(Verdict::works_with_limits, Verdict::works));
  EXPECT_TRUE(worse(Verdict::works, Verdict::not_run));
  EXPECT_FALSE(worse(Verdict::works, Verdict::broken));
}

// A project's table: ops down, cells across, each entry naming the checks.
TEST(LibraryTables, OneTablePerLibraryWithOpsByCells) {
  ResultsSet set;
  CellResult a = cell("none", {result("lib::scatter", "registration", Status::pass), result("lib::scatter", "compile", Status::fail),
                               result("lib::gather", "registration", Status::fail)});
  a.cell["id"] = "lib-new";
  a.cell["torch"] = "2.15.0";
  a.cell["project"] = {{"label", "pypi lib==1.0"}};
  CellResult b = cell("none", {result("lib::scatter", "registration", Status::pass)});
  b.cell["id"] = "lib-old";
  b.cell["torch"] = "2.1.2";
  b.cell["project"] = {{"label", "pypi lib==1.0"}};
  set.cells = {a, b};
  const auto tables = library_tables(set);
  ASSERT_EQ(tables.size(), 1u);
  const Grid& g = tables[0];
  EXPECT_EQ(g.title, "Each op of pypi lib==1.0");
  EXPECT_EQ(g.columns, (std::vector<std::string>{"op", "lib-old (torch 2.1.2)", "lib-new (torch 2.15.0)"}));
  ASSERT_EQ(g.rows.size(), 3u);
  EXPECT_EQ(g.rows[0][2], "✘ broken: lib::gather · registration: fail");
  EXPECT_EQ(g.rows[1], (std::vector<std::string>{"lib::scatter", "✔", "◐ compile"}));
  EXPECT_EQ(g.rows[2], (std::vector<std::string>{"lib::gather", "○", "✘ registration"}));
  EXPECT_EQ(g.classes[2], (std::vector<std::string>{"notrun", "fail"}));
}

}  // namespace opmatrix

namespace opmatrix {

// A user's matrix (no cell of our own kernels): the report opens with their library, by its
// name, as a torch x CUDA table, then each of its ops; no empty table of a subject it lacks.
TEST(Report, AUsersReportOpensWithTheirLibrary) {
  ResultsSet set;
  CellResult a = cell("none", {check_result("box_iou", "registration", Status::pass)});
  a.cell["id"] = "mylib-trixie";
  a.cell["torch"] = "2.6.0";
  a.cell["project"] = {{"label", "mylib"}, {"path", "."}};
  CellResult b = cell("12.4", {check_result("box_iou", "registration", Status::fail, "mylib::box_iou: no CUDA kernel")});
  b.cell["id"] = "mylib-pypi";
  b.cell["torch"] = "2.5.1";
  b.cell["project"] = {{"label", "mylib"}, {"path", "."}};
  set.cells = {a, b};
  EXPECT_EQ(report_subjects(set), std::vector<std::string>{"mylib"});
  const std::string md = render_markdown(set, "");
  const auto heading = md.find("## mylib\n");
  ASSERT_NE(heading, std::string::npos) << md;
  EXPECT_EQ(md.find("| torch | torchvision |"), md.find("| torch | torchvision | cpu | CUDA 12.4 |"));
  EXPECT_GT(md.find("| torch | torchvision |"), heading) << "the verdict table belongs to the library's section";
  EXPECT_NE(md.find("| 2.5.1 | 0.20.1 |  | [✘ broken: box_iou · registration: mylib::box_iou: no CUDA kernel](#cell-mylib-pypi) |"),
            std::string::npos) << md;
  EXPECT_GT(md.find("## Each op of mylib"), heading);
  // Exactly one verdict table: none of our kernels.
  EXPECT_EQ(md.find("| torch | torchvision |", md.find("| torch | torchvision |") + 1), std::string::npos) << md;
  const std::string html = render_html(set);
  EXPECT_LT(html.find("<h2>mylib</h2>"), html.find("<table id=\"compat\">")) << html.substr(0, 3000);
}

// A package none of whose libraries is for this runtime (vllm-xpu-kernels' XPU builds beside a
// CPU torch), whose import works: not run, never "works" (its import passed) nor a limit.
TEST(Verdict, APackageForAnotherDeviceIsNotRun) {
  CheckResult none = result("", "load", Status::skip, "vllm_xpu_kernels not checked here: none of its 12 compiled "
                                                      "libraries is for this runtime (torch 2.6.0+debian)");
  none.subtest = "library";
  none.diagnosis = Diagnosis{"for_another_runtime", none.message, "", "", ""};
  CheckResult import = result("", "load", Status::pass, "import vllm_xpu_kernels works");
  import.subtest = "import";
  const CellVerdict v = assess(cell("none", {result("", "fetch", Status::pass), none, import}));
  EXPECT_EQ(v.verdict, Verdict::not_run);
  EXPECT_NE(v.not_run.find("none of its 12 compiled libraries is for this runtime"), std::string::npos) << v.not_run;
}

}  // namespace opmatrix
