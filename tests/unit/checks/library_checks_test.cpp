#include <gtest/gtest.h>

#include "crossload/cross_load.h"
#include "checks/check_results.h"
#include "checks/load/load_judge.h"
#include "checks/registry.h"
#include "checks/requirements/missing_module.h"
#include "checks/nvrtc/nvrtc_judge.h"
#include "checks/fatbin/fatbin_judge.h"
#include "testbed.h"

namespace opmatrix {

namespace {
const CheckResult* find(const std::vector<CheckResult>& checks, const std::string& check, const std::string& arch,
                        const std::string& op = "") {
  for (const auto& c : checks)
    if (c.check == check && c.arch == arch && c.op == op) return &c;
  return nullptr;
}

nlohmann::json undefined_report() {
  return nlohmann::json::parse(R"({"torch": "2.6.0", "libraries": [{"path": "/x/libopmatrix_ops.so", "loaded": false,
    "error_kind": "undefined_symbol", "error": "undefined symbol: _ZN2at4_ops5empty4callE",
    "undefined": [{"symbol": "_ZN2at4_ops5empty4callE", "demangled": "at::_ops::empty::call"}],
    "undefined_count": 4}]})");
}
}  // namespace

TEST(LoadChecks, UndefinedSymbolsAreNamedDemangledWithTheCount) {
  const auto checks = load_checks(undefined_report(), "repro");
  ASSERT_EQ(checks.size(), 1u);
  EXPECT_EQ(checks[0].status, Status::fail);
  EXPECT_NE(checks[0].message.find("undefined symbol: at::_ops::empty::call (+3 more)"), std::string::npos);
  ASSERT_TRUE(checks[0].diagnosis);
  EXPECT_EQ(checks[0].diagnosis->kind, "undefined_symbol");
  EXPECT_EQ(checks[0].diagnosis->repro, "repro");
}

// torchopt 0.7.3's _C (built for torch 2.1) beside torch 2.8: undefined symbols, and its import
// imports adam_op from Python instead (load_library.py's "python_fallback"): a limit, the cause
// still said; its std::string ABI red is that limit's cause, not a second break. Without the
// fallback, the same library is red.
TEST(LoadChecks, ALibraryThePackageReplacesWithPythonIsALimitSayingWhere) {
  nlohmann::json report = nlohmann::json::parse(R"({"torch": "2.8.0+cu128", "libraries": [
    {"path": "/build/site/torchopt/_C.cpython-311-x86_64-linux-gnu.so", "loaded": false,
     "error_kind": "undefined_symbol", "undefined": [{"symbol": "_ZN2at4_ops10empty_like4callE",
     "demangled": "at::_ops::empty_like::call"}], "undefined_count": 2,
     "python_fallback": {"module": "torchopt._C", "site": "torchopt/accelerated_op/adam_op.py:28",
                         "names": ["adam_op"], "fallback": "torchopt.accelerated_op._src"}}],
    "import": {"module": "torchopt", "ok": true}})");
  const auto checks = load_checks(report, "r");
  ASSERT_EQ(checks.size(), 1u);
  EXPECT_EQ(checks[0].status, Status::skip);
  EXPECT_EQ(checks[0].message,
            "_C.cpython-311-x86_64-linux-gnu.so: undefined symbol: at::_ops::empty_like::call (+1 more) — import "
            "torchopt works without it: where torchopt._C does not load, torchopt/accelerated_op/adam_op.py:28 "
            "imports adam_op from torchopt.accelerated_op._src instead");
  ASSERT_TRUE(checks[0].diagnosis);
  EXPECT_EQ(checks[0].diagnosis->kind, kPythonFallback);
  EXPECT_EQ(checks[0].diagnosis->repro, "r");

  CheckResult abi = make_check("", "cxx11_abi", "", Status::fail,
                               "_C.cpython-311-x86_64-linux-gnu.so was compiled with the old std::string ABI");
  abi.diagnosis = make_diagnosis("cxx11_abi_mismatch", abi.message, "rebuild", "r");
  const CheckResult set_aside = library_done_without(abi, checks);
  EXPECT_EQ(set_aside.status, Status::skip);
  EXPECT_FALSE(set_aside.diagnosis);
  EXPECT_NE(set_aside.message.find("the package does without it (see load)"), std::string::npos);
  CheckResult other = abi;
  other.message = "libother.so was compiled with the old std::string ABI";
  EXPECT_EQ(library_done_without(other, checks).status, Status::fail) << "another library: its own red";

  report["libraries"][0].erase("python_fallback");
  const auto without = load_checks(report, "r");
  EXPECT_EQ(without[0].status, Status::fail);
  EXPECT_EQ(library_done_without(abi, without).status, Status::fail);
}

// torch-kdtree 1.0 ships torch_knn….so twice (top level and in its package): one red, not two.
TEST(LoadChecks, ALibraryShippedTwiceFailingAlikeIsOneRed) {
  auto report = undefined_report();
  report["libraries"].push_back(report["libraries"][0]);
  report["libraries"][1]["path"] = "/x/pkg/libopmatrix_ops.so";
  const auto checks = load_checks(report, "repro");
  ASSERT_EQ(checks.size(), 1u);
  EXPECT_NE(checks[0].message.find("(the package ships 2 copies of it, at different paths, which fail alike)"),
            std::string::npos) << checks[0].message;
  report["libraries"][1]["undefined"][0]["demangled"] = "at::_ops::zeros::call";  // a different failure: its own red
  EXPECT_EQ(load_checks(report, "repro").size(), 2u);
}

TEST(LoadChecks, ALibraryThatKillsItsLoaderIsACrashWithTheReason) {
  const auto report = nlohmann::json::parse(R"({"torch": "2.5.1", "libraries": [
      {"path": "/build/site/x/_a_cuda.so", "loaded": false, "error_kind": "crash", "signal": "SIGABRT",
       "error": "the process died while loading it (SIGABRT): what():  Tried to register an operator twice"}]})");
  const auto checks = load_checks(report, "r");
  ASSERT_EQ(checks.size(), 1u);
  EXPECT_EQ(checks[0].status, Status::crash);
  ASSERT_TRUE(checks[0].diagnosis);
  EXPECT_EQ(checks[0].diagnosis->kind, "crash_at_load");
  EXPECT_NE(checks[0].message.find("_a_cuda.so: the process died while loading it (SIGABRT)"), std::string::npos)
      << checks[0].message;
}

// nixl-cu12 1.5.1 beside Debian's torch 2.6: its grafted UCX (libucs-14c218c5.so.0.0.0) dies as it
// loads, for Debian's libucs.so.0 is already in torch's process (through Open MPI).
TEST(LoadChecks, ACrashMeetingACopyTorchsProcessHasAlreadyLoadedNamesBoth) {
  const auto report = nlohmann::json::parse(R"json({"torch": "2.6.0", "libraries": [
      {"path": "/s/nixl_cu12.libs/libucs-14c218c5.so.0.0.0", "loaded": false, "error_kind": "crash",
       "signal": "SIGABRT",
       "error": "the process died while loading it (SIGABRT): debug.c:1204 Assertion `!ucs_debug_initialized' failed",
       "meets_loaded_copy": [{"own": "libucs-14c218c5.so.0.0.0",
                              "loaded": "/usr/lib/x86_64-linux-gnu/libucs.so.0.0.0"}]}]})json");
  const auto checks = load_checks(report, "r");
  ASSERT_EQ(checks.size(), 1u);
  EXPECT_EQ(checks[0].status, Status::crash);
  EXPECT_EQ(checks[0].message, "libucs-14c218c5.so.0.0.0: its package's copy libucs-14c218c5.so.0.0.0 meets the copy "
                               "torch's process has already loaded, /usr/lib/x86_64-linux-gnu/libucs.so.0.0.0: the "
                               "process died while loading it (SIGABRT): debug.c:1204 Assertion "
                               "`!ucs_debug_initialized' failed");
  ASSERT_TRUE(checks[0].diagnosis);
  EXPECT_EQ(checks[0].diagnosis->kind, "second_copy_at_load");
  EXPECT_NE(checks[0].diagnosis->fix.find("RTLD_DEEPBIND"), std::string::npos);
}

// nixl-cu13 1.5.1 beside PyPI's torch 2.13 on a machine without a GPU: its import fails for the
// driver's libcuda.so.1, so what it would go on without is not known here; its backend plugins,
// which lack the Azure SDK and nothing of it needs, are named as optional, not red. Where the
// import fails otherwise, they stay red.
TEST(LoadChecks, LibrariesNothingNeedsBesideAnImportNotCheckableHereAreOptional) {
  auto report = nlohmann::json::parse(R"json({"torch": "2.13.0", "torch_cuda": "13.0", "libraries": [
      {"path": "/s/plugins/libplugin_AZURE_BLOB.so", "loaded": false, "error_kind": "missing_library",
       "missing_libraries": ["libazure-core.so.1"], "optional_unless_imported": true},
      {"path": "/s/nixl_ep_cu13/nixl_ep_cpp_torch213.cpython-311-x86_64-linux-gnu.so", "loaded": false,
       "error_kind": "missing_library", "missing_libraries": ["libcuda.so.1"], "optional_unless_imported": true}],
      "import": {"module": "nixl_ep_cu13", "ok": false,
                 "error": "ImportError: libcuda.so.1: cannot open shared object file: No such file or directory"}})json");
  auto out = load_checks(report, "r");
  const auto plugin = std::find_if(out.begin(), out.end(), [](const CheckResult& c) {
    return c.message.find("libplugin_AZURE_BLOB.so") != std::string::npos;
  });
  ASSERT_NE(plugin, out.end());
  EXPECT_EQ(plugin->status, Status::skip) << plugin->message;
  EXPECT_NE(plugin->message.find("whether import nixl_ep_cu13 needs it is not known here: it fails for want of "
                                 "libcuda.so.1"),
            std::string::npos)
      << plugin->message;
  // What lacks the library the import lacks is what the import was loading: the driver's skip, as before.
  const auto extension = std::find_if(out.begin(), out.end(), [](const CheckResult& c) {
    return c.message.rfind("nixl_ep_cpp_torch213", 0) == 0;
  });
  ASSERT_NE(extension, out.end());
  EXPECT_EQ(extension->diagnosis ? extension->diagnosis->kind : "", "needs_gpu_driver") << extension->message;
  const auto red = [](const std::vector<CheckResult>& results) {
    return std::any_of(results.begin(), results.end(), [](const CheckResult& c) {
      return is_bad(c.status) && c.message.rfind("libplugin_AZURE_BLOB.so: needs", 0) == 0;
    });
  };
  auto cpu = report;
  cpu["torch_cuda"] = nullptr;
  EXPECT_TRUE(red(load_checks(cpu, "r"))) << "beside a CPU-only torch the driver is no excuse";
  // Beside torch 2.15, for which it ships no build (`.nixl_ep_cpp_torch215`): that is the red, at
  // the library; the plugins are what the import might go on without, not known here either.
  auto other_torch = report;
  other_torch["import"]["error"] = "ModuleNotFoundError: No module named 'nixl_ep_cu13.nixl_ep_cpp_torch215'";
  other_torch["libraries"].push_back(nlohmann::json::parse(R"json({
      "path": "/s/nixl_ep_cu13/nixl_ep_cpp_torch214.cpython-311-x86_64-linux-gnu.so", "loaded": false,
      "error_kind": "undefined_symbol", "for_torch": "2.14", "build_of": "nixl_ep_cpp",
      "undefined": [{"symbol": "x", "demangled": "c10::foo()"}]})json"));
  const auto beside_another = load_checks(other_torch, "r");
  EXPECT_FALSE(red(beside_another));
  EXPECT_TRUE(std::any_of(beside_another.begin(), beside_another.end(), [](const CheckResult& c) {
    return c.message.find("it fails for want of its build of nixl_ep_cpp for this torch") != std::string::npos;
  }));
  report["import"]["error"] = "ModuleNotFoundError: No module named 'packaging'";
  EXPECT_TRUE(red(load_checks(report, "r"))) << "an import that fails for its own reason leaves it red";
}

TEST(LoadChecks, NoLibraryIsAnError) {
  const auto checks = load_checks(nlohmann::json::parse(R"({"libraries": [], "error": "no library to load"})"), "r");
  ASSERT_EQ(checks.size(), 1u);
  EXPECT_EQ(checks[0].status, Status::error);
}

// torch_npu next to a torch of 2.5 on: torch runs its torch.backends entry point at `import
// torch`. Where that fails for another cause, installing it breaks torch itself: a finding of the
// package (fail, with torch's cause and the switch that disables autoloading), not an error of the
// infrastructure to run again. Where it fails for want of Ascend's CANN (libhccl.so), which its
// users install with the NPU, nothing of it can be checked here: not checked, CANN named.
TEST(LoadChecks, APackageWhoseBackendAutoloadBreaksImportTorchIsRedUnlessItLacksItsDeviceRuntime) {
  auto report = nlohmann::json::parse(R"({"libraries": [],
    "error": "import torch: RuntimeError: Failed to load the backend extension: torch_npu. You can disable extension auto-loading with TORCH_DEVICE_BACKEND_AUTOLOAD=0.",
    "backend_autoload": {"entry_point": "torch_npu", "cause": "ImportError: libtorch_npu.so: undefined symbol: _ZN3c104impl8GPUTrace9haveStateE"}})");
  auto checks = load_checks(report, "r");
  ASSERT_EQ(checks.size(), 1u);
  EXPECT_EQ(checks[0].status, Status::fail);
  EXPECT_EQ(checks[0].subtest, "import");
  EXPECT_EQ(checks[0].message, "installing it breaks `import torch`: torch runs its device-backend entry point "
                               "'torch_npu' (torch.backends) at import, and it fails here: ImportError: libtorch_npu.so: "
                               "undefined symbol: _ZN3c104impl8GPUTrace9haveStateE");
  ASSERT_TRUE(checks[0].diagnosis);
  EXPECT_EQ(checks[0].diagnosis->kind, "breaks_import_torch");
  EXPECT_NE(checks[0].diagnosis->fix.find("TORCH_DEVICE_BACKEND_AUTOLOAD=0"), std::string::npos);

  report["backend_autoload"]["cause"] = "ImportError: libhccl.so: cannot open shared object file: No such file or directory";
  checks = load_checks(report, "r");
  ASSERT_EQ(checks.size(), 1u);
  EXPECT_EQ(checks[0].status, Status::skip);
  ASSERT_TRUE(checks[0].diagnosis);
  EXPECT_EQ(checks[0].diagnosis->kind, "needs_system_library");
  EXPECT_EQ(checks[0].message.rfind("not checked here: installing it makes `import torch` run its device-backend entry "
                                    "point 'torch_npu' (torch.backends), which needs Ascend CANN's libhccl.so", 0), 0u)
      << checks[0].message;
  EXPECT_NE(checks[0].diagnosis->fix.find("TORCH_DEVICE_BACKEND_AUTOLOAD=0"), std::string::npos);

  // The device runtime's library named missing in the package's own words (torch-rbln 0.12.0:
  // Rebellions' librbln.so, from an SDK on no public index): not checked either, that library named.
  report["backend_autoload"] = {{"entry_point", "autoload"},
                                {"cause", "FileNotFoundError: Could not find librbln.so. No rebel-compiler "
                                          "distribution is installed for /usr/bin/python3"}};
  checks = load_checks(report, "r");
  ASSERT_EQ(checks.size(), 1u);
  EXPECT_EQ(checks[0].status, Status::skip);
  ASSERT_TRUE(checks[0].diagnosis);
  EXPECT_EQ(checks[0].diagnosis->kind, "needs_system_library");
  EXPECT_EQ(checks[0].message.rfind("not checked here: installing it makes `import torch` run its device-backend entry "
                                    "point 'autoload' (torch.backends), which needs librbln.so, a library of its "
                                    "device's runtime",
                                    0),
            0u)
      << checks[0].message;
  EXPECT_NE(checks[0].diagnosis->fix.find("provides librbln.so"), std::string::npos);
  // A library it found and that fails otherwise stays the package's red.
  report["backend_autoload"]["cause"] = "OSError: librbln.so: undefined symbol: rbln_init";
  EXPECT_EQ(load_checks(report, "r")[0].status, Status::fail);
}

TEST(NamespaceChecks, MissingCudaKernelIsTheUsersBackendError) {
  const auto report = nlohmann::json::parse(
      R"({"ops": {"box_iou": {"CPU": true, "CUDA": false, "Meta": false, "Autograd": false}}})");
  const auto checks = namespace_checks(report, "boxops", true, "r");
  const CheckResult* reg = find(checks, "registration", "", "box_iou");
  ASSERT_TRUE(reg && reg->diagnosis);
  EXPECT_EQ(reg->status, Status::fail);
  EXPECT_NE(reg->diagnosis->summary.find("Could not run 'boxops::box_iou' with arguments from the 'CUDA' backend"),
            std::string::npos);
  const CheckResult* meta = find(checks, "meta", "", "box_iou");
  ASSERT_TRUE(meta);
  EXPECT_EQ(meta->status, Status::fail);
  // Without CUDA promised, CPU alone registers.
  EXPECT_EQ(find(namespace_checks(report, "boxops", false, "r"), "registration", "", "box_iou")->status, Status::pass);
}

// fbgemm-gpu-cpu 1.0.0 next to torch 2.15: its library does not load, `import fbgemm_gpu`
// still succeeds, and its ops simply are not there. Said in words, one red per op, no Meta line.
// torchao 0.7.0 in its own torch (PyPI 2.5.1, CUDA 12.4): marlin_24_gemm has CUDA and Meta
// kernels and none for CPU, by its own registration: a CUDA-only op, not "no CPU kernel". In a CPU
// runtime, or where the library declares its backends, CPU is still expected.
TEST(NamespaceChecks, AnOpRegisteredForCudaAloneIsCudaOnlyWhereNothingIsDeclared) {
  const auto report = nlohmann::json::parse(
      R"({"ops": {"marlin_24_gemm": {"CPU": false, "CUDA": true, "Meta": true, "Autograd": false}}})");
  const auto in_cuda = namespace_checks(report, "torchao", true, "r");
  const CheckResult* reg = find(in_cuda, "registration", "", "marlin_24_gemm");
  ASSERT_TRUE(reg);
  EXPECT_EQ(reg->status, Status::pass) << reg->message;
  EXPECT_EQ(reg->message, "torchao::marlin_24_gemm has CUDA, Meta kernels (no CPU kernel, as its library promises: it "
                          "registers a CUDA kernel and none for CPU, a CUDA-only op)");
  const auto in_cpu = namespace_checks(report, "torchao", false, "r");
  EXPECT_EQ(find(in_cpu, "registration", "", "marlin_24_gemm")->status, Status::fail);
  Promises both;
  both.backends = {"cpu", "cuda"};
  const auto declared = namespace_checks(report, "torchao", true, "r", &both);
  EXPECT_EQ(find(declared, "registration", "", "marlin_24_gemm")->status, Status::fail);
}

// torchcodec 0.3.0 (built for torch 2.7) beside Debian's torch 2.6, which has no CUDA: the kernel
// of its `TORCH_LIBRARY_IMPL(torchcodec_ns, CPU, m)` block sits on CUDA (dispatch keys numbered
// otherwise), its BackendSelect ones stay. Still no CPU kernel, and the fix is a build for this
// torch, not a registration its source already has. A kernel registered for CUDA from Python, or
// in a CUDA torch, is no such sign.
TEST(NamespaceChecks, AKernelOfCppOnCudaInATorchWithoutCudaIsABuildForAnotherTorch) {
  auto report = nlohmann::json::parse(R"({"torch_cuda": null,
    "ops": {"add_video_stream": {"CPU": false, "CUDA": true, "Meta": true, "Autograd": false}},
    "registered_at": {"add_video_stream": {"CUDA": "/__w/torchcodec/src/torchcodec/_core/custom_ops.cpp:657"}}})");
  auto out = namespace_checks(report, "torchcodec_ns", false, "r");
  const CheckResult* reg = find(out, "registration", "", "add_video_stream");
  ASSERT_TRUE(reg && reg->diagnosis);
  EXPECT_EQ(reg->status, Status::fail);
  EXPECT_EQ(reg->diagnosis->kind, "dispatch_keys_of_another_torch");
  EXPECT_NE(reg->message.find("no CPU kernel (its kernel sits on CUDA instead, registered at "
                              "/__w/torchcodec/src/torchcodec/_core/custom_ops.cpp:657, in a torch built without CUDA"),
            std::string::npos) << reg->message;
  EXPECT_NE(reg->diagnosis->fix.find("install the release built for this torch"), std::string::npos);

  report["registered_at"]["add_video_stream"]["CUDA"] = "/usr/lib/python3/dist-packages/torch/library.py:1012";
  out = namespace_checks(report, "torchcodec_ns", false, "r");
  EXPECT_EQ(find(out, "registration", "", "add_video_stream")->diagnosis->kind, "not_registered");
  report["registered_at"]["add_video_stream"]["CUDA"] = "/dev/null:198";
  out = namespace_checks(report, "torchcodec_ns", false, "r");
  EXPECT_EQ(find(out, "registration", "", "add_video_stream")->diagnosis->kind, "not_registered");
  report["registered_at"]["add_video_stream"]["CUDA"] = "custom_ops.cpp:657";
  report["torch_cuda"] = "12.4";
  out = namespace_checks(report, "torchcodec_ns", false, "r");
  EXPECT_EQ(find(out, "registration", "", "add_video_stream")->diagnosis->kind, "not_registered");
}

TEST(NamespaceChecks, AnOpThatDoesNotExistIsSaidSo) {
  const auto report = nlohmann::json::parse(
      R"({"ops": {"tbe_input_combine": {"CPU": null, "CUDA": null, "Meta": null, "Autograd": null}}})");
  const auto checks = namespace_checks(report, "fbgemm", false, "r");
  ASSERT_EQ(checks.size(), 1u);
  EXPECT_EQ(checks[0].status, Status::fail);
  EXPECT_EQ(checks[0].message, "fbgemm::tbe_input_combine is not registered at all in this runtime (no schema: its "
                               "library did not load, or does not define it)");
  ASSERT_TRUE(checks[0].diagnosis);
  EXPECT_EQ(checks[0].diagnosis->kind, "not_registered_at_all");
}

// bitsandbytes 0.43-0.45 load their libraries by ctypes and define no torch op; from 0.46 its ops
// are torch.library ops. An empty namespace is a break only where the release's files define or
// use ops there, and the red then names them.
TEST(NamespaceChecks, AnEmptyNamespaceIsABreakOnlyWhereTheReleasesFilesNameIt) {
  auto report = nlohmann::json::parse(R"({"ops": {}, "namespace_in_files": {"files": 56, "naming": []}})");
  auto checks = namespace_checks(report, "bitsandbytes", true, "r");
  ASSERT_EQ(checks.size(), 1u);
  EXPECT_EQ(checks[0].status, Status::skip);
  EXPECT_NE(checks[0].message.find("none of its 56 Python files and shared libraries names it"), std::string::npos)
      << checks[0].message;
  report["namespace_in_files"]["naming"] = {"_ops.py", "functional.py"};
  checks = namespace_checks(report, "bitsandbytes", true, "r");
  ASSERT_EQ(checks.size(), 1u);
  EXPECT_EQ(checks[0].status, Status::fail);
  EXPECT_EQ(checks[0].message, "no op is registered in namespace 'bitsandbytes' after loading the library (its files "
                               "define or use ops there: _ops.py, functional.py)");
  // A pure-Python build (no compiled library) whose import works: a limit, said with the files.
  report["libraries"] = nlohmann::json::array();
  report["import"] = {{"ok", true}, {"module", "bitsandbytes"}};
  checks = namespace_checks(report, "bitsandbytes", true, "r");
  ASSERT_EQ(checks.size(), 1u);
  EXPECT_EQ(checks[0].status, Status::skip);
  EXPECT_EQ(checks[0].diagnosis ? checks[0].diagnosis->kind : "", "no_extension_by_design");
  EXPECT_NE(checks[0].message.find("holds no compiled library (a pure-Python build), and the ops its Python names "
                                   "there (_ops.py, functional.py)"), std::string::npos) << checks[0].message;
  report["import"]["ok"] = false;
  EXPECT_EQ(namespace_checks(report, "bitsandbytes", true, "r")[0].status, Status::fail);
  report.erase("libraries");
  report.erase("import");
  // Nothing read (no package folder found): no evidence of absence, the red stands.
  report["namespace_in_files"] = {{"files", 0}, {"naming", nlohmann::json::array()}};
  EXPECT_EQ(namespace_checks(report, "bitsandbytes", true, "r")[0].status, Status::fail);
  report.erase("namespace_in_files");
  EXPECT_EQ(namespace_checks(report, "bitsandbytes", true, "r")[0].status, Status::fail);
}

// The one registration rule: a Composite kernel serving a key counts, and the message says which.
TEST(NamespaceChecks, CompositeKernelsServeAndAreNamed) {
  const auto report = nlohmann::json::parse(R"({
    "ops": {"box_area": {"CPU": true, "CUDA": true, "Meta": true, "Autograd": false}},
    "served_by": {"box_area": {"CPU": "CPU", "CUDA": "CompositeExplicitAutograd", "Meta": "CompositeExplicitAutograd",
                               "Autograd": null}}})");
  const auto checks = namespace_checks(report, "boxops", true, "r");
  const CheckResult* reg = find(checks, "registration", "", "box_area");
  ASSERT_TRUE(reg);
  EXPECT_EQ(reg->status, Status::pass);
  EXPECT_EQ(reg->message, "boxops::box_area has CPU, CUDA (via CompositeExplicitAutograd), Meta (via "
                          "CompositeExplicitAutograd) kernels");
  const CheckResult* meta = find(checks, "meta", "", "box_area");
  ASSERT_TRUE(meta);
  EXPECT_EQ(meta->status, Status::pass);
  EXPECT_EQ(meta->message, "boxops::box_area has a Meta kernel (via CompositeExplicitAutograd)");
}

// fbgemm-gpu-cpu 1.0.0's jagged_slice: its only kernel is registered for the Autograd key, which
// runs first for every call on CPU or CUDA tensors. Served there, never "no CPU kernel".
// bitsandbytes 0.50 registers its ops from Python, and its CUDA kernels only where
// torch.cuda.is_available(): in a CUDA runtime without a visible GPU their absence is unknown,
// not a red; a C++ op's missing CUDA kernel (registered at dlopen, GPU or not) stays red.
TEST(NamespaceChecks, APythonOpsMissingCudaKernelIsUnknownWithoutAVisibleGpu) {
  const auto report = nlohmann::json::parse(R"({
    "ops": {"int8_vectorwise_quant": {"CPU": true, "CUDA": false, "Meta": true, "Autograd": false},
            "int8_double_quant": {"CPU": false, "CUDA": false, "Meta": true, "Autograd": false},
            "cpp_op": {"CPU": true, "CUDA": false, "Meta": true, "Autograd": false}},
    "from_python": {"int8_vectorwise_quant": ["CPU", "Meta"], "int8_double_quant": ["Meta"]}})");
  const auto no_gpu = namespace_checks(report, "bitsandbytes", true, "r", nullptr, /*gpu_visible=*/false);
  const CheckResult* quant = find(no_gpu, "registration", "", "int8_vectorwise_quant");
  ASSERT_TRUE(quant);
  EXPECT_EQ(quant->status, Status::pass) << quant->message;
  EXPECT_NE(quant->message.find("where no GPU is visible"), std::string::npos) << quant->message;
  const CheckResult* dq = find(no_gpu, "registration", "", "int8_double_quant");
  ASSERT_TRUE(dq);
  EXPECT_EQ(dq->status, Status::fail);  // no CPU kernel: a GPU would not add one
  EXPECT_EQ(dq->missing_kernels, std::vector<std::string>{"CPU"});
  EXPECT_EQ(find(no_gpu, "registration", "", "cpp_op")->status, Status::fail);
  // With a GPU visible, a missing CUDA kernel is a red whoever registered the rest.
  EXPECT_EQ(find(namespace_checks(report, "bitsandbytes", true, "r"), "registration", "", "int8_vectorwise_quant")->status,
            Status::fail);
}

TEST(NamespaceChecks, AnAutogradKernelServesCpuAndCudaCalls) {
  const auto report = nlohmann::json::parse(R"({
    "ops": {"jagged_slice": {"CPU": false, "CUDA": false, "Meta": false, "Autograd": true},
            "only_cuda_autograd": {"CPU": false, "CUDA": false, "Meta": false, "Autograd": true}},
    "served_by": {"jagged_slice": {"CPU": null, "CUDA": null, "Meta": null, "Autograd": "Autograd"},
                  "only_cuda_autograd": {"CPU": null, "CUDA": null, "Meta": null, "Autograd": "AutogradCUDA"}}})");
  const auto checks = namespace_checks(report, "fbgemm", true, "r");
  const CheckResult* reg = find(checks, "registration", "", "jagged_slice");
  ASSERT_TRUE(reg);
  EXPECT_EQ(reg->status, Status::pass) << reg->message;
  EXPECT_EQ(reg->message, "fbgemm::jagged_slice has Autograd kernels (CPU, CUDA calls are served by its Autograd "
                          "kernel, which runs first for every call: judged by presence, a call tells whether it "
                          "computes or redispatches)");
  // An AutogradCUDA kernel serves CUDA calls only: CPU is still missing.
  const CheckResult* cuda = find(checks, "registration", "", "only_cuda_autograd");
  ASSERT_TRUE(cuda);
  EXPECT_EQ(cuda->status, Status::fail);
  EXPECT_EQ(cuda->missing_kernels, std::vector<std::string>{"CPU"});
}

TEST(NvrtcChecks, RejectedArchCarriesNvrtcsLog) {
  const auto report = nlohmann::json::parse(R"j({"version": "12.4", "archs": {
    "9.0": {"accepted": true, "log": ""},
    "10.0": {"accepted": false, "log": "NVRTC_ERROR_INVALID_OPTION: nvrtc: error: invalid value for --gpu-architecture (-arch)"}}})j");
  const auto checks = nvrtc_checks(report, {"9.0", "10.0", "12.0"}, "r");
  EXPECT_EQ(find(checks, "nvrtc", "9.0")->status, Status::pass);
  EXPECT_EQ(find(checks, "nvrtc", "10.0")->status, Status::fail);
  EXPECT_NE(find(checks, "nvrtc", "10.0")->message.find("invalid value for --gpu-architecture"), std::string::npos);
  EXPECT_EQ(find(checks, "nvrtc", "12.0")->status, Status::skip);
}

TEST(FatbinChecks, SassSameMajorPtxJitOrNothing) {
  const auto report = nlohmann::json::parse(
      R"({"library": "/b/libx.so", "elf": ["sm_75", "sm_80", "sm_90a"], "ptx": ["sm_80"]})");
  const auto checks = fatbin_checks(report, {"7.0", "7.5", "8.6", "9.0", "10.0"}, "r");
  EXPECT_EQ(find(checks, "fatbin", "7.0")->status, Status::fail);  // sm_75 SASS does not run on sm_70
  EXPECT_NE(find(checks, "fatbin", "7.5")->message.find("SASS sm_75"), std::string::npos);
  EXPECT_NE(find(checks, "fatbin", "8.6")->message.find("SASS sm_80"), std::string::npos);
  // sm_90a is arch-specific: it runs on sm_90 itself, and sm_100 needs the compute_80 PTX.
  EXPECT_NE(find(checks, "fatbin", "9.0")->message.find("SASS sm_90a"), std::string::npos);
  EXPECT_NE(find(checks, "fatbin", "10.0")->message.find("PTX sm_80"), std::string::npos)
      << find(checks, "fatbin", "10.0")->message;
}

// torchao 0.18.0's _C_cutlass_90a holds sm_90a cubins only, by design (its generic kernels are in
// _C): judged on sm_90 alone, a skip elsewhere. A library with generic SASS beside an `a` cubin
// is judged everywhere as before.
TEST(FatbinChecks, ALibraryOfArchSpecificCodeOnlyIsJudgedOnItsArchAlone) {
  const auto only_90a = nlohmann::json::parse(R"({"library": "/b/_C_cutlass_90a.abi3.so", "elf": ["sm_90a"], "ptx": []})");
  const auto checks = fatbin_checks(only_90a, {"8.0", "9.0", "10.0"}, "r");
  EXPECT_EQ(find(checks, "fatbin", "9.0")->status, Status::pass);
  EXPECT_EQ(find(checks, "fatbin", "8.0")->status, Status::skip);
  EXPECT_NE(find(checks, "fatbin", "10.0")->message.find("holds only arch-specific code (sm_90a)"), std::string::npos)
      << find(checks, "fatbin", "10.0")->message;
  const auto mixed = nlohmann::json::parse(R"({"library": "/b/_C.so", "elf": ["sm_80", "sm_90a"], "ptx": []})");
  EXPECT_EQ(find(fatbin_checks(mixed, {"7.0"}, "r"), "fatbin", "7.0")->status, Status::fail);
}

TEST(FatbinChecks, SayWhoListedTheCodeAndWhetherTheCrossCheckAgrees) {
  auto report = nlohmann::json::parse(R"({"library": "/b/libx.so", "elf": ["sm_80"], "ptx": [],
      "tool": "/opt/cuda/bin/cuobjdump", "cross_check": "agrees"})");
  EXPECT_EQ(fatbin_checks(report, {"8.0"}, "r").at(0).message,
            "libx.so holds SASS sm_80 for sm_80 (cuobjdump; the section read directly agrees)");
  report["cross_check"] = "differs: the section read directly holds SASS ['sm_75'] and PTX []";
  EXPECT_EQ(fatbin_checks(report, {"8.0"}, "r").at(0).message,
            "libx.so holds SASS sm_80 for sm_80 (cuobjdump; cross-check: differs: the section read directly holds "
            "SASS ['sm_75'] and PTX [])");
  report.erase("cross_check");
  report["tool"] = "the .nv_fatbin section read directly (no cuobjdump in this cell)";
  EXPECT_EQ(fatbin_checks(report, {"7.0"}, "r").at(0).message,
            "libx.so holds no code for sm_70 (SASS: sm_80; PTX: none) (the .nv_fatbin section read directly (no "
            "cuobjdump in this cell))");
}

TEST(FatbinChecks, APrebuiltLibraryIsJudgedOnlyOnTheArchsItsTorchRunsOn) {
  // torch 2.1.2+cu121 holds SASS up to sm_90: sm_100 and sm_120 are beyond it, so bitsandbytes'
  // _cuda121 build lacking them is not a red; compute_90 PTX in torch's list would reach them.
  std::vector<std::string> beyond;
  const std::vector<std::string> torch_archs = {"sm_50", "sm_60", "sm_70", "sm_75", "sm_80", "sm_86", "sm_90"};
  EXPECT_EQ(archs_torch_runs_on({"7.0", "9.0", "10.0", "12.0"}, torch_archs, beyond),
            (std::vector<std::string>{"7.0", "9.0"}));
  EXPECT_EQ(beyond, (std::vector<std::string>{"10.0", "12.0"}));
  beyond.clear();
  // torch 2.15+cu132 starts at sm_75: sm_70 is beyond it.
  EXPECT_EQ(archs_torch_runs_on({"7.0", "7.5", "12.0"}, {"sm_75", "sm_80", "sm_90", "sm_100", "sm_120"}, beyond),
            (std::vector<std::string>{"7.5", "12.0"}));
  EXPECT_EQ(beyond, (std::vector<std::string>{"7.0"}));
  beyond.clear();
  EXPECT_EQ(archs_torch_runs_on({"10.0"}, {"sm_90", "compute_90"}, beyond), (std::vector<std::string>{"10.0"}));
  // Unknown (an older probe, a CPU torch): every arch is judged.
  EXPECT_EQ(archs_torch_runs_on({"7.0", "10.0"}, {}, beyond), (std::vector<std::string>{"7.0", "10.0"}));
  EXPECT_TRUE(beyond.empty());
}

TEST(CrossLoadOutcome, ClassifiesEachWayALoadEnds) {
  EXPECT_EQ(cross_load_outcome({{"timed_out", true}})["outcome"], "timeout");
  EXPECT_EQ(cross_load_outcome({{"signal", "SIGSEGV"}, {"report", nullptr}})["outcome"], "crash");
  nlohmann::json undefined = {{"report", undefined_report()}, {"exit_code", 0}};
  const auto u = cross_load_outcome(undefined);
  EXPECT_EQ(u["outcome"], "undefined_symbol");
  EXPECT_EQ(u["symbols"][0], "at::_ops::empty::call");
  nlohmann::json loaded = {{"exit_code", 0},
                           {"report", nlohmann::json::parse(R"({"libraries": [{"loaded": true}],
                              "ops": {"nms": {"CPU": true}, "roi_align": {"CPU": null}}})")}};
  EXPECT_EQ(cross_load_outcome(loaded)["outcome"], "not_registered");
  loaded["report"]["ops"]["roi_align"]["CPU"] = true;
  EXPECT_EQ(cross_load_outcome(loaded)["outcome"], "loads");
  EXPECT_FALSE(cross_load_outcome(loaded).contains("computes"));  // no cases ran: nothing said
}

TEST(CrossLoadOutcome, TheRuntimesCasesSayWhetherItComputes) {
  nlohmann::json loaded = {{"exit_code", 0},
                           {"report", nlohmann::json::parse(R"({"libraries": [{"loaded": true}],
                              "ops": {"nms": {"CPU": true}}})")}};
  loaded["cases"] = nlohmann::json::parse(R"([{"name": "nms_correctness", "exit_code": 0, "tests": 7, "failed": []},
    {"name": "roi_align_correctness", "exit_code": 0, "tests": 5, "failed": []}])");
  auto pass = cross_load_outcome(loaded);
  EXPECT_EQ(pass["outcome"], "loads");
  EXPECT_EQ(pass["computes"], "pass");
  EXPECT_EQ(pass["cases"]["tests"], 12);
  loaded["cases"][1] = nlohmann::json::parse(R"({"name": "roi_align_correctness", "exit_code": 1, "tests": 5,
    "failed": ["RoiAlign.MatchesReference: max difference 0.5"]})");
  auto fail = cross_load_outcome(loaded);
  EXPECT_EQ(fail["outcome"], "loads");  // it loads; that it computes wrong is a separate finding
  EXPECT_EQ(fail["computes"], "fail");
  EXPECT_NE(fail["summary"].get<std::string>().find("1 of 2 correctness binaries fail: roi_align_correctness: "
                                                    "RoiAlign.MatchesReference"),
            std::string::npos);
}


TEST(CrossLoadCases, ARuntimeJudgesWithItsCasesOnlyWhereItsOwnTestStepPassed) {
  // The cases report per op (`correctness`), never as a check named `test`: the step decides.
  Cell cell;
  cell.id = "rt";
  CellResult r;
  CheckResult built;
  built.check = "build";
  built.status = Status::pass;
  r.checks.push_back(built);
  CheckResult correctness;
  correctness.check = "correctness";
  correctness.op = "nms";
  r.checks.push_back(correctness);
  EXPECT_FALSE(runtime_has_cases(cell, r));  // no test step ran
  StepResult test;
  test.name = "test";
  test.status = Status::fail;
  r.steps.push_back(test);
  EXPECT_FALSE(runtime_has_cases(cell, r));  // its own library fails them: no reference
  r.steps.back().status = Status::xfail;
  EXPECT_TRUE(runtime_has_cases(cell, r));
  r.steps.back().status = Status::pass;
  EXPECT_TRUE(runtime_has_cases(cell, r));
  cell.project = Project{};
  EXPECT_FALSE(runtime_has_cases(cell, r));  // another library's cell has no cases of ours
}

}  // namespace opmatrix

namespace opmatrix {

// IPEX 2.8.0 in torch 2.6: its version check prints that it needs PyTorch 2.8.*, then calls
// `os.exit(127)`, which raises AttributeError. The refusal is the cause, in its own words.
TEST(ImportCheck, AVersionCheckRefusingThisTorchIsTheCauseNotWhatItRaisedAfter) {
  const nlohmann::json import = {
      {"module", "intel_extension_for_pytorch"}, {"ok", false},
      {"error", "AttributeError: module 'os' has no attribute 'exit'"},
      {"refused", {"ERROR! Intel® Extension for PyTorch* needs to work with PyTorch 2.8.*, but PyTorch 2.6.0 is found. "
                   "Please switch to the matching version and run again."}}};
  const CheckResult c = import_check(import, "r");
  EXPECT_EQ(c.status, Status::fail);
  EXPECT_EQ(c.message.rfind("import intel_extension_for_pytorch refuses this torch: \"ERROR! Intel® Extension for "
                            "PyTorch* needs to work with PyTorch 2.8.*", 0), 0u) << c.message;
  ASSERT_TRUE(c.diagnosis);
  EXPECT_EQ(c.diagnosis->kind, "torch_version_refused");
  EXPECT_NE(c.diagnosis->evidence.find("(then: AttributeError: module 'os' has no attribute 'exit')"), std::string::npos);
}

// exllamav2 0.3.2 in PyPI torch 2.9.1 (CUDA 12.8), no GPU: its first import compiles its CUDA code,
// and torch.utils.cpp_extension takes the archs from the visible GPUs, failing on an empty list.
TEST(ImportCheck, AFirstUseCompileForTheVisibleGpusOnAMachineWithoutOneIsNotChecked) {
  const nlohmann::json import = {
      {"module", "exllamav2"}, {"ok", false}, {"error", "IndexError: list index out of range"},
      {"traceback", "  File \"/opt/venv/lib/python3.11/site-packages/torch/utils/cpp_extension.py\", line 2438, in "
                    "_get_cuda_arch_flags\n    arch_list[-1] += '+PTX'\nIndexError: list index out of range\n"}};
  const CheckResult c = import_check(import, "r");
  EXPECT_EQ(c.status, Status::skip);
  ASSERT_TRUE(c.diagnosis);
  EXPECT_EQ(c.diagnosis->kind, kJitNeedsVisibleGpu);
  EXPECT_NE(c.diagnosis->fix.find("TORCH_CUDA_ARCH_LIST"), std::string::npos);
  // The same IndexError raised anywhere else is the library's.
  const nlohmann::json own = {{"module", "x"}, {"ok", false}, {"error", "IndexError: list index out of range"},
                              {"traceback", "  File \"/build/site/x/__init__.py\", line 3, in <module>\n"}};
  EXPECT_EQ(import_check(own, "r").status, Status::fail);
}

// cpm-kernels 1.0.11 in PyPI torch 2.15 (CUDA 13.2), no GPU: its import calls cudaGetDeviceCount,
// and cudart answers as it does where no driver is installed. On a machine with a GPU (an old
// driver) the same words are the library's red.
TEST(ImportCheck, AnImportInitialisingCudaOnAMachineWithoutAGpuIsNotChecked) {
  const nlohmann::json import = {
      {"module", "cpm_kernels"}, {"ok", false},
      {"error", "RuntimeError: CUDA Runtime Error: CUDA driver version is insufficient for CUDA runtime version"},
      {"traceback", "  File \"/build/site/cpm_kernels/library/cudart.py\", line 351, in cudaGetDeviceCount\n"
                    "RuntimeError: CUDA Runtime Error: CUDA driver version is insufficient for CUDA runtime version\n"}};
  const CheckResult c = import_check(import, "r", /*gpu_visible=*/false);
  EXPECT_EQ(c.status, Status::skip);
  EXPECT_EQ(c.message, "cpm_kernels not checked here: its import initialises CUDA, and this machine has no GPU or "
                       "driver (\"CUDA driver version is insufficient for CUDA runtime version\")");
  ASSERT_TRUE(c.diagnosis);
  EXPECT_EQ(c.diagnosis->kind, "needs_gpu_driver");
  EXPECT_EQ(import_check(import, "r", /*gpu_visible=*/true).status, Status::fail) << "a GPU is there: an old driver";
  const nlohmann::json torch_init = {{"module", "x"}, {"ok", false},
                                     {"error", "RuntimeError: Found no NVIDIA driver on your system. Please check that "
                                               "you have an NVIDIA GPU and installed a driver"}};
  EXPECT_EQ(import_check(torch_init, "r", false).status, Status::skip);
  const nlohmann::json other = {{"module", "x"}, {"ok", false}, {"error", "RuntimeError: CUDA error: out of memory"}};
  EXPECT_EQ(import_check(other, "r", false).status, Status::fail);
}

// flag-gems 5.0.2 in PyPI torch 2.8 without a GPU: its import asks nvidia-smi and its peers' tools
// which device is there and, none answering, raises in its own words. Other words about devices
// (a device-side assert, an unsupported device) stay the library's red.
TEST(ImportCheck, AnImportSayingInItsOwnWordsThatItFoundNoDeviceIsNotCheckedWithoutAGpu) {
  const nlohmann::json import = {
      {"module", "flag_gems"}, {"ok", false},
      {"error", "RuntimeError: No device were detected on your machine ! \n Please check that your driver is complete. "}};
  const CheckResult c = import_check(import, "r", /*gpu_visible=*/false);
  EXPECT_EQ(c.status, Status::skip);
  EXPECT_EQ(c.message, "flag_gems not checked here: its import looks for a GPU or accelerator to run on, and this "
                       "machine has none (\"No device were detected\")");
  ASSERT_TRUE(c.diagnosis);
  EXPECT_EQ(c.diagnosis->kind, "needs_gpu_driver");
  EXPECT_EQ(import_check(import, "r", /*gpu_visible=*/true).status, Status::fail) << "a GPU is there: its red";
  for (const char* words : {"RuntimeError: no supported GPU found", "RuntimeError: Could not find any CUDA device",
                            "OSError: No accelerator available for this build"}) {
    const nlohmann::json said = {{"module", "x"}, {"ok", false}, {"error", words}};
    EXPECT_EQ(import_check(said, "r", false).status, Status::skip) << words;
  }
  for (const char* words : {"RuntimeError: The cpu device is not supported currently. ",
                            "RuntimeError: CUDA error: device-side assert triggered",
                            "ModuleNotFoundError: No module named 'devices'"}) {
    const nlohmann::json said = {{"module", "x"}, {"ok", false}, {"error", words}};
    EXPECT_EQ(import_check(said, "r", false).status, Status::fail) << words;
  }
}

// uccl 0.0.1.post4: its __init__ lists /sys/class/infiniband/ (to tell AWS EFA adapters), which
// only a machine with RDMA adapters has. Not checked here, on a machine without one, GPU or not; a
// file of its own, or any other folder, missing stays red.
TEST(ImportCheck, AnImportReadingADeviceFolderThisMachineLacksIsNotChecked) {
  const nlohmann::json import = {
      {"module", "uccl"}, {"ok", false},
      {"error", "FileNotFoundError: [Errno 2] No such file or directory: '/sys/class/infiniband/'"}};
  for (const bool gpu : {false, true}) {
    const CheckResult c = import_check(import, "r", gpu);
    EXPECT_EQ(c.status, Status::skip);
    EXPECT_EQ(c.message, "uccl not checked here: its import reads /sys/class/infiniband/, which only a machine with RDMA "
                         "network adapters (InfiniBand, RoCE, EFA) has, and this one has none (FileNotFoundError: "
                         "[Errno 2] No such file or directory: '/sys/class/infiniband/')");
    ASSERT_TRUE(c.diagnosis);
    EXPECT_EQ(c.diagnosis->kind, "needs_device");
  }
  for (const char* words : {"FileNotFoundError: [Errno 2] No such file or directory: '/site/uccl/lib/config.json'",
                            "FileNotFoundError: [Errno 2] No such file or directory: '/sys/fs/cgroup/cpu.max'",
                            "OSError: /dev/shm is full"}) {
    const nlohmann::json said = {{"module", "x"}, {"ok", false}, {"error", words}};
    EXPECT_EQ(import_check(said, "r", false).status, Status::fail) << words;
  }
}

// kaolin 0.1 on PyPI: its import raises, saying it is a placeholder and where the package is
// installed from. The run checked the wrong distribution: an error, never the library's red.
TEST(ImportCheck, APlaceholderSayingSoIsNotTheLibrarysRed) {
  const nlohmann::json import = {
      {"module", "kaolin"}, {"ok", false},
      {"error", "ImportError: This is the kaolin placeholder wheel from https://pypi.org/project/kaolin/. Please follow "
                "https://kaolin.readthedocs.io/en/latest/notes/installation.html for installation."}};
  const CheckResult c = import_check(import, "r");
  EXPECT_EQ(c.status, Status::error);
  ASSERT_TRUE(c.diagnosis);
  EXPECT_EQ(c.diagnosis->kind, kPlaceholderPackage);
  EXPECT_EQ(c.message.rfind("import kaolin: this distribution is a placeholder, in its own words (ImportError: This is "
                            "the kaolin placeholder wheel", 0), 0u) << c.message;
  const nlohmann::json other = {{"module", "x"}, {"ok", false}, {"error", "ImportError: see https://x.org for help"}};
  EXPECT_EQ(import_check(other, "r").status, Status::fail);
}

// intel-extension-for-transformers 1.4.2 beside torch 2.9.1 on a CPU without AVX-512: its
// libkernellibs.so dies of SIGILL as it loads (AVX-512 code in a constructor); qbits_py's
// undefined symbol of an older torch is the pair's red.
TEST(LoadChecks, ALibraryDyingOfSigillForInstructionsThisCpuLacksIsNotCheckedHere) {
  const nlohmann::json report = {
      {"torch", "2.9.1+cu128"},
      {"libraries",
       {{{"path", "/site/itrex/libkernellibs.so"}, {"loaded", false}, {"error_kind", "crash"}, {"signal", "SIGILL"},
         {"cpu_lacks", {"AVX-512"}},
         {"error", "the process died while loading it (SIGILL): its code uses AVX-512 instructions, which this "
                   "machine's CPU does not have"}},
        {{"path", "/site/itrex/libcrash.so"}, {"loaded", false}, {"error_kind", "crash"}, {"signal", "SIGILL"},
         {"error", "the process died while loading it (SIGILL)"}}}}};
  const auto checks = load_checks(report, "r");
  ASSERT_EQ(checks.size(), 2u);
  EXPECT_EQ(checks[0].status, Status::skip);
  ASSERT_TRUE(checks[0].diagnosis);
  EXPECT_EQ(checks[0].diagnosis->kind, kCpuLacksInstructions);
  EXPECT_NE(checks[0].diagnosis->fix.find("a CPU with AVX-512"), std::string::npos) << checks[0].diagnosis->fix;
  // A SIGILL whose code uses nothing this CPU lacks (a trap: ud2) stays the library's crash.
  EXPECT_EQ(checks[1].status, Status::crash);
  CheckResult import;
  import.check = "load";
  import.subtest = "import";
  import.status = Status::crash;
  import.message = "import itrex: the import killed its process (SIGILL)";
  EXPECT_EQ(explained_by_library_failure(import, {checks[0]}).status, Status::skip);
  EXPECT_EQ(explained_by_library_failure(import, {checks[1]}).status, Status::crash);
}

// torch-cluster 1.6.3 (its sdist, no namespace declared) registers torch_cluster::fps, … with
// torch::RegisterOperators: an op library whose namespace nobody named, never "a pybind11 extension".
TEST(LoadChecks, APackageThatRegisteredOpsNobodyDeclaredIsNotCalledAPlainExtension) {
  const nlohmann::json with_ops = {
      {"import", {{"ok", true}, {"module", "torch_cluster"}, {"functions", {"fps"}}}},
      {"namespaces_added", {{"torch_cluster", {"fps", "graclus", "grid", "knn", "knn_graph", "nearest", "radius"}}}}};
  const CheckResult c = not_a_dispatcher_library(with_ops, "r");
  EXPECT_EQ(c.status, Status::skip);
  EXPECT_NE(c.message.find("registered ops in namespace torch_cluster (fps, graclus, grid, knn, knn_graph, nearest, …)"),
            std::string::npos) << c.message;
  EXPECT_EQ(c.message.find("pybind11"), std::string::npos) << c.message;
  const nlohmann::json without = {{"import", {{"ok", true}, {"module", "torchsort"}, {"functions", {"soft_rank"}}}},
                                  {"namespaces_added", nlohmann::json::object()}};
  EXPECT_EQ(not_a_dispatcher_library(without, "r").message.rfind("registers no dispatcher op at import: its import "
                                                                 "added none", 0), 0u);
  // executorch 1.5.1: its import registers nothing, its custom-ops library does when loaded.
  const nlohmann::json by_library = {
      {"import", {{"ok", true}, {"module", "executorch"}, {"functions", nlohmann::json::array()}}},
      {"namespaces_added", nlohmann::json::object()},
      {"libraries",
       {{{"path", "/site/executorch/extension/llm/custom_ops/libcustom_ops_aot_lib.so"}, {"loaded", true},
         {"registers", {{"llama", {"custom_sdpa", "fast_hadamard_transform", "sdpa_with_kv_cache", "update_cache",
                                   "update_cross_attn_cache"}}}}}}}};
  EXPECT_EQ(not_a_dispatcher_library(by_library, "r").message,
            "its ops not judged: its import registers none, and its libraries, loaded, register ops in namespace llama "
            "(custom_sdpa, fast_hadamard_transform, sdpa_with_kv_cache, update_cache, …) by libcustom_ops_aot_lib.so "
            "(declare it as the project's `namespace:` to judge them); module executorch exposes no functions");
  // dgl 2.1.0 beside torch 2.15: its import fails, so nothing it registers could be read.
  const nlohmann::json failed = {{"import", {{"ok", false}, {"module", "dgl"}}},
                                 {"namespaces_added", nlohmann::json::object()}};
  EXPECT_EQ(not_a_dispatcher_library(failed, "r").message.rfind("its ops not inspected", 0), 0u);
  // torch-tpu 0.2.0 in torch 2.14: its import works; its builds for other torches do not load, and
  // are not meant to: what the import registered is read. A library of its own that fails is not.
  nlohmann::json other_torchs = {{"import", {{"ok", true}, {"module", "torch_tpu"}}},
                                 {"namespaces_added", nlohmann::json::object()},
                                 {"libraries", {{{"path", "/s/env_2_14_0.so"}, {"loaded", true}},
                                                {{"path", "/s/env_2_13_0.so"}, {"loaded", false}, {"for_torch", "2.13.0"},
                                                 {"variant_of", "env_2_14_0.so"}}}}};
  EXPECT_EQ(not_a_dispatcher_library(other_torchs, "r").message.rfind("registers no dispatcher op at import", 0), 0u);
  other_torchs["libraries"][1].erase("for_torch");
  other_torchs["libraries"][1].erase("variant_of");
  EXPECT_EQ(not_a_dispatcher_library(other_torchs, "r").message.rfind("its ops not inspected", 0), 0u);
}

// deepspeed-kernels 0.0.1's wheel holds `dskernels`: an import of `deepspeed_kernels` (the
// distribution's name) is the run's input at fault, not the package: not checked, never red.
TEST(ImportCheck, AnImportNamingAModuleThePackageLacksIsTheRunsInputNotARed) {
  const nlohmann::json import = {{"module", "deepspeed_kernels"}, {"ok", false},
                                 {"error", "ModuleNotFoundError: No module named 'deepspeed_kernels'"},
                                 {"missing_modules", {"deepspeed_kernels"}},
                                 {"package_modules", {"dskernels"}}};
  const CheckResult c = import_check(import, "r");
  EXPECT_EQ(c.status, Status::error);
  ASSERT_TRUE(c.diagnosis);
  EXPECT_EQ(c.diagnosis->kind, kImportNotInPackage);
  EXPECT_TRUE(is_infrastructure("load", c.diagnosis->kind));
  EXPECT_NE(c.message.find("its modules: dskernels"), std::string::npos) << c.message;
  EXPECT_NE(c.diagnosis->fix.find("`import: dskernels`"), std::string::npos) << c.diagnosis->fix;
}

// exllamav3 1.6.5 in PyPI torch 2.9.1, no GPU: the package stops before torch would, and asks
// for the arch list in its own words.
TEST(ImportCheck, APackageAskingForTorchCudaArchListOnAMachineWithoutAGpuIsNotChecked) {
  const nlohmann::json import = {
      {"module", "exllamav3"}, {"ok", false},
      {"error", "RuntimeError: No CUDA device is visible to determine the architectures to build exllamav3_ext for. "
                "Set TORCH_CUDA_ARCH_LIST to the target architectures, e.g. TORCH_CUDA_ARCH_LIST=\"8.6;8.9+PTX\""},
      {"traceback", "  File \"/build/site/exllamav3/ext.py\", line 188, in <module>\n    raise RuntimeError(\n"}};
  const CheckResult c = import_check(import, "r");
  EXPECT_EQ(c.status, Status::skip);
  ASSERT_TRUE(c.diagnosis);
  EXPECT_EQ(c.diagnosis->kind, kJitNeedsVisibleGpu);
  // A RuntimeError that names no arch list is the package's.
  const nlohmann::json other = {{"module", "x"}, {"ok", false}, {"error", "RuntimeError: No CUDA device is visible"},
                                {"traceback", "  File \"/build/site/x/__init__.py\", line 3, in <module>\n"}};
  EXPECT_EQ(import_check(other, "r").status, Status::fail);
}

// exllamav3 1.6.5 beside Debian's CPU torch 2.6: its first import compiles CUDA code, and torch's
// cpp_extension finds no toolkit. CUDA_HOME unset elsewhere (the package's own code) stays a red.
TEST(ImportCheck, AFirstUseCudaCompileWithoutACudaToolkitIsNotChecked) {
  const nlohmann::json import = {
      {"module", "exllamav3"}, {"ok", false},
      {"error", "OSError: CUDA_HOME environment variable is not set. Please set it to your CUDA install root."},
      {"traceback", "  File \"/usr/lib/python3/dist-packages/torch/utils/cpp_extension.py\", line 2525, in "
                    "_join_cuda_home\n    raise OSError('CUDA_HOME environment variable is not set. '\n"}};
  const CheckResult c = import_check(import, "r");
  EXPECT_EQ(c.status, Status::skip);
  ASSERT_TRUE(c.diagnosis);
  EXPECT_EQ(c.diagnosis->kind, kJitNeedsCuda);
  EXPECT_NE(c.message.find("no CUDA toolkit"), std::string::npos) << c.message;
  const nlohmann::json own = {{"module", "x"}, {"ok", false},
                              {"error", "OSError: CUDA_HOME environment variable is not set."},
                              {"traceback", "  File \"/build/site/x/__init__.py\", line 3, in <module>\n"}};
  EXPECT_EQ(import_check(own, "r").status, Status::fail);
}

// amd-aiter 0.1.7 beside a CPU or CUDA torch: its JIT runs hipconfig at import and raises "ROCm
// version file not found": a library for AMD GPUs, nothing of it judged here. Another RuntimeError
// stays the import's red.
TEST(ImportCheck, AnImportThatNeedsRocmIsNotChecked) {
  const nlohmann::json import = {
      {"module", "aiter"}, {"ok", false}, {"error", "RuntimeError: ROCm version file not found"},
      {"traceback", "  File \"/build/site/aiter/jit/utils/cpp_extension.py\", line 94, in get_hip_version\n"
                    "    raise RuntimeError(\"ROCm version file not found\")\n"}};
  const CheckResult c = import_check(import, "r");
  EXPECT_EQ(c.status, Status::skip);
  ASSERT_TRUE(c.diagnosis);
  EXPECT_EQ(c.diagnosis->kind, kNeedsRocm);
  EXPECT_EQ(c.message, "aiter not checked here: its import needs AMD's ROCm, which this runtime (a torch without ROCm) "
                       "does not have (RuntimeError: ROCm version file not found)");
  nlohmann::json other = import;
  other["error"] = "RuntimeError: version file not found";
  EXPECT_EQ(import_check(other, "r").status, Status::fail);
}

// basicsr 1.4.2 in PyPI's torch 2.8: its import loads cv2 (opencv-python, a requirement), which
// needs X11's libxcb.so.1, a desktop's and not this image's: not checked here, the library named
// with its fix. A library no table knows stays the import's red.
TEST(ImportCheck, AnImportThatLoadsAModuleLackingASystemLibraryIsNotChecked) {
  nlohmann::json import = {
      {"module", "basicsr"}, {"ok", false}, {"failed_in", "cv2"},
      {"error", "ImportError: libxcb.so.1: cannot open shared object file: No such file or directory"},
      {"traceback", "  File \"/build/site/cv2/__init__.py\", line 153, in bootstrap\n"}};
  const CheckResult c = import_check(import, "r");
  EXPECT_EQ(c.status, Status::skip);
  ASSERT_TRUE(c.diagnosis);
  EXPECT_EQ(c.diagnosis->kind, "needs_system_library");
  EXPECT_EQ(c.message.rfind("basicsr not checked here: its import loads cv2, which needs X11's libxcb.so.1, a system "
                            "library its users install themselves", 0), 0u) << c.message;
  EXPECT_NE(c.diagnosis->fix.find("apt install libx11-6"), std::string::npos) << c.diagnosis->fix;
  import["error"] = "ImportError: libopm_private.so.3: cannot open shared object file: No such file or directory";
  EXPECT_EQ(import_check(import, "r").status, Status::fail);
}

// vptq 0.0.5.post1 beside torch 2.5.1: the refusal is transformers', a requirement, whose code
// raised; the package is not the one refusing.
TEST(ImportCheck, ARefusalRaisedInsideARequirementIsThatRequirements) {
  const nlohmann::json import = {
      {"module", "vptq"}, {"ok", false}, {"error", "NameError: name 'nn' is not defined"}, {"failed_in", "transformers"},
      {"refused", {"[transformers] Disabling PyTorch because PyTorch >= 2.6 is required but found 2.5.1"}}};
  const CheckResult c = import_check(import, "r");
  EXPECT_EQ(c.status, Status::fail);
  EXPECT_EQ(c.message, "import vptq fails inside transformers, which refuses this torch: \"[transformers] Disabling "
                       "PyTorch because PyTorch >= 2.6 is required but found 2.5.1\"");
  ASSERT_TRUE(c.diagnosis);
  EXPECT_EQ(c.diagnosis->kind, "requirement_refuses_torch");
}

// fbgemm-gpu-cpu 1.5.0 in Debian's torch 2.6: `import fbgemm_gpu` aborts (a static initialiser's
// std::bad_alloc). load_library.py tried the import in a child, which died: a crash of the import,
// with its signal and last words, never a missing report.
TEST(ImportCheck, AnImportThatKillsItsProcessIsACrashWithItsLastWords) {
  const nlohmann::json import = {
      {"module", "fbgemm_gpu"}, {"ok", false}, {"crash", "SIGABRT"},
      {"error", "the import killed its process (SIGABRT): what():  std::bad_alloc"},
      {"traceback", "for the FBGEMM-PyTorch compatibility table.\nterminate called after throwing an instance of "
                    "'std::bad_alloc'\n  what():  std::bad_alloc"}};
  const CheckResult c = import_check(import, "podman run ... load_library.py");
  EXPECT_EQ(c.status, Status::crash);
  EXPECT_EQ(c.message, "import fbgemm_gpu: the import killed its process (SIGABRT): what():  std::bad_alloc");
  ASSERT_TRUE(c.diagnosis);
  EXPECT_EQ(c.diagnosis->kind, "crash_at_import");
  EXPECT_NE(c.diagnosis->evidence.find("FBGEMM-PyTorch compatibility table"), std::string::npos);
  EXPECT_EQ(c.diagnosis->repro, "podman run ... load_library.py");
}

// torchao 0.18.0 in torch 2.6: the sentence that names the torch it wants comes second in its words;
// it leads the quote, so that a table's headline (cut at a word near 110 characters) keeps it.
TEST(ImportCheck, ARefusalLeadsWithTheSentenceThatNamesTheTorch) {
  const nlohmann::json import = {
      {"module", "torchao"}, {"ok", false}, {"error", "ImportError: cannot import name 'register_constant'"},
      {"refused", {"Skipping import of cpp extensions due to incompatible torch version. Please upgrade to torch "
                   ">= 2.11.0 (found 2.6.0+debian)."}}};
  const CheckResult c = import_check(import, "r");
  EXPECT_EQ(c.message, "import torchao refuses this torch: \"Please upgrade to torch >= 2.11.0 (found 2.6.0+debian).\" "
                       "(after \"Skipping import of cpp extensions due to incompatible torch version.\")");
}

// dgl 2.1.0: `from packaging import version`, else setuptools' vendored copy, which setuptools 84
// no longer has. The module it wanted is named first, where the requirement rule reads it: the
// one fix is to declare `packaging`, not setuptools.
TEST(ImportCheck, AModuleItFellBackFromIsTheOneNamedFirst) {
  const nlohmann::json import = {{"module", "dgl"}, {"ok", false},
                                 {"error", "ModuleNotFoundError: No module named 'setuptools.extern'"},
                                 {"traceback", "ModuleNotFoundError: No module named 'packaging'\n\nDuring handling ..."},
                                 {"missing_modules", {"packaging", "setuptools.extern"}}};
  CheckResult c = import_check(import, "r");
  EXPECT_EQ(c.message, "import dgl failed: ModuleNotFoundError: No module named 'packaging', and then, in its fallback: "
                       "No module named 'setuptools.extern'");
  std::vector<CheckResult> checks = {c};
  name_missing_requirement("wheel dgl==2.1.0", {{"ok", true}, {"requirements", {"numpy>=1.14.0"}}}, checks);
  ASSERT_TRUE(checks[0].diagnosis);
  EXPECT_EQ(checks[0].diagnosis->kind, "undeclared_requirement");
  EXPECT_NE(checks[0].diagnosis->summary.find("the module 'packaging'"), std::string::npos) << checks[0].diagnosis->summary;
}

// ms-deform-attn 1.0.1 in PyPI torch 2.15 (CUDA 13.2): its library is a CUDA 12 build ("needs
// libcudart.so.12"), and its import fails loading that very library: one cause, one red.
TEST(ImportCheck, AnImportFailingForTheLibraryItsLibraryLacksIsNotASecondRed) {
  const nlohmann::json import = {{"module", "MultiScaleDeformableAttention"}, {"ok", false},
                                 {"error", "ImportError: libcudart.so.12: cannot open shared object file: No such file "
                                           "or directory"}};
  const CheckResult c = import_check(import, "r");
  EXPECT_EQ(c.status, Status::fail);
  CheckResult library = testbed::check_result("load", Status::fail, "", "",
                                              "MultiScaleDeformableAttention.cpython-311-x86_64-linux-gnu.so: built for "
                                              "CUDA 12: needs libcudart.so.12, and this runtime's torch has CUDA 13.2");
  library.subtest = "library";
  const CheckResult explained = explained_by_library_failure(c, {library});
  EXPECT_EQ(explained.status, Status::skip);
  EXPECT_FALSE(explained.diagnosis);
  EXPECT_NE(explained.message.find("the missing libcudart.so.12 its library lacks, above: one cause, judged there"),
            std::string::npos) << explained.message;
  // Another library missing at import is its own red.
  library.message = "_C.so: built for CUDA 12: needs libcublas.so.12, and this runtime's torch has CUDA 13.2";
  EXPECT_EQ(explained_by_library_failure(c, {library}).status, Status::fail);
}

// fbgemm-gpu-genai 1.9.0 beside Debian's CPU torch 2.14: torch's load_library says "Could not load
// this library: <path>" of a library already red for what it lacks (libnccl.so.2, libtorch_cuda.so):
// one cause, one red. The loader's "<path>: undefined symbol" of it the same.
TEST(ImportCheck, AnImportFailingOnALibraryOfItsOwnThatIsRedIsNotASecondRed) {
  CheckResult library = testbed::check_result("load", Status::fail, "", "",
                                              "fbgemm_gpu_experimental_gen_ai.so: needs libnccl.so.2, libtorch_cuda.so "
                                              "(not in this runtime)");
  library.subtest = "library";
  for (const char* error : {"OSError: Could not load this library: /b/site/fbgemm_gpu/experimental/gen_ai/"
                            "fbgemm_gpu_experimental_gen_ai.so",
                            "OSError: /b/site/fbgemm_gpu/experimental/gen_ai/fbgemm_gpu_experimental_gen_ai.so: "
                            "undefined symbol: _ZN3c108ListType3getE"}) {
    const nlohmann::json import = {{"module", "fbgemm_gpu"}, {"ok", false}, {"error", error}};
    const CheckResult explained = explained_by_library_failure(import_check(import, "r"), {library});
    EXPECT_EQ(explained.status, Status::skip) << error;
    EXPECT_NE(explained.message.find("— fbgemm_gpu_experimental_gen_ai.so, which does not load here, above: one cause"),
              std::string::npos) << explained.message;
  }
  // Another library of it, not red here, stays the import's red.
  const nlohmann::json other = {{"module", "fbgemm_gpu"}, {"ok", false},
                                {"error", "OSError: Could not load this library: /b/site/fbgemm_gpu/fbgemm_gpu_py.so"}};
  EXPECT_EQ(explained_by_library_failure(import_check(other, "r"), {library}).status, Status::fail);
}

// nixl-cu12 1.5.1 beside torch 2.4.1: `nixl_ep_cu12` imports `.nixl_ep_cpp_torch24`, a build it does
// not ship (2.11, 2.12 and 2.13 only): the import's failure is the library's red, once.
TEST(ImportCheck, AnImportMissingItsOwnBuildForThisTorchIsNotASecondRed) {
  const nlohmann::json import = {
      {"module", "nixl_ep_cu12"}, {"ok", false},
      {"error", "ModuleNotFoundError: No module named 'nixl_ep_cu12.nixl_ep_cpp_torch24'"}};
  const CheckResult c = import_check(import, "r");
  ASSERT_EQ(c.status, Status::fail);
  CheckResult library = testbed::check_result("load", Status::fail, "", "",
                                              "nixl_ep_cpp: no build for torch 2.4.1: the package has builds of it for "
                                              "torch 2.11, 2.12, 2.13 only (…)");
  library.subtest = "library";
  library.diagnosis = Diagnosis{"no_build_for_this_torch", library.message, "", "", ""};
  const CheckResult explained = explained_by_library_failure(c, {library});
  EXPECT_EQ(explained.status, Status::skip);
  EXPECT_NE(explained.message.find("its package's nixl_ep_cpp has no build for this torch, above"), std::string::npos)
      << explained.message;
  // Another module missing stays the import's red.
  const nlohmann::json other = {{"module", "nixl_ep_cu12"}, {"ok", false},
                                {"error", "ModuleNotFoundError: No module named 'packaging'"}};
  EXPECT_EQ(explained_by_library_failure(import_check(other, "r"), {library}).status, Status::fail);
}

// xformers' "can't load C++/CUDA extensions" (load_library.py's "declined"): it imports and runs
// without what it was built to run — a red quoting its words, unless a library of it that does
// not load here is already the red that explains it (one cause, one red).
TEST(ImportCheck, APackageDecliningItsOwnExtensionIsNeverAPass) {
  const nlohmann::json import = {{"module", "xformers"}, {"ok", true},
                                 {"declined", {"WARNING[XFORMERS]: xFormers can't load C++/CUDA extensions."}}};
  const CheckResult c = import_check(import, "podman run ... load_library.py");
  EXPECT_EQ(c.status, Status::fail);
  EXPECT_EQ(c.message, "import xformers succeeds, but it declines its own compiled extension: \"WARNING[XFORMERS]: "
                       "xFormers can't load C++/CUDA extensions.\"");
  ASSERT_TRUE(c.diagnosis);
  EXPECT_EQ(c.diagnosis->kind, "declined_extension");

  EXPECT_EQ(explained_by_library_failure(c, {}).status, Status::fail);
  CheckResult library = testbed::check_result("load", Status::fail, "", "", "_C.so: undefined symbol: c10::foo()");
  library.subtest = "library";
  const CheckResult explained = explained_by_library_failure(c, {library});
  EXPECT_EQ(explained.status, Status::pass);
  EXPECT_FALSE(explained.diagnosis);
  EXPECT_NE(explained.message.find("(the library that does not load, above, is why)"), std::string::npos);
}

}  // namespace opmatrix

namespace opmatrix {

// bitsandbytes next to a CPU torch: the import loads libbitsandbytes_cpu.so; its CUDA builds are
// for other runtimes (load_library.py's "variant_of"): one skip naming them, no red.
TEST(LoadChecks, BuildsForOtherRuntimesAreOneSkipNotReds) {
  const auto report = nlohmann::json::parse(R"({"torch": "2.6.0", "import": {"module": "bitsandbytes", "ok": true},
    "libraries": [{"path": "/s/bitsandbytes/libbitsandbytes_cpu.so", "loaded": true},
      {"path": "/s/bitsandbytes/libbitsandbytes_cuda121.so", "loaded": false, "error_kind": "missing_library",
       "missing_libraries": ["libcudart.so.12"], "variant_of": "libbitsandbytes_cpu.so"},
      {"path": "/s/bitsandbytes/libbitsandbytes_cuda126.so", "loaded": false, "error_kind": "missing_library",
       "missing_libraries": ["libcudart.so.12"], "variant_of": "libbitsandbytes_cpu.so"}]})");
  const auto out = load_checks(report, "r");
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].status, Status::pass);
  EXPECT_EQ(out[1].status, Status::skip);
  EXPECT_EQ(out[1].message, "2 builds of its library for other runtimes (another device, CUDA, ROCm, torch version or "
                            "std::string ABI), unused here: libbitsandbytes_cuda121.so, libbitsandbytes_cuda126.so — libbitsandbytes_cpu.so is "
                            "the one for this runtime");
}

// torchcodec 0.4.0 beside bookworm's FFmpeg 5: its import loads libtorchcodec_core5.so and
// custom_ops5; the builds for FFmpeg 4, 6 and 7 lack those FFmpegs' libraries (and their own
// core of that version): builds for other versions of FFmpeg, one skip with no diagnosis — neither
// an optional backend missing (a limit) nor a system library this runtime lacks (not checked).
TEST(LoadChecks, BuildsForOtherVersionsOfASystemLibraryAreOneSkipNeitherLimitNorUnchecked) {
  const auto report = nlohmann::json::parse(R"({"torch": "2.7.1+cu126",
    "import": {"module": "torchcodec", "ok": true},
    "libraries": [{"path": "/s/torchcodec/libtorchcodec_core5.so", "loaded": true},
      {"path": "/s/torchcodec/libtorchcodec_custom_ops5.so", "loaded": true},
      {"path": "/s/torchcodec/libtorchcodec_core4.so", "loaded": false, "error_kind": "missing_library",
       "missing_libraries": ["libavutil.so.56", "libavcodec.so.58"], "variant_of": "libtorchcodec_core5.so"},
      {"path": "/s/torchcodec/libtorchcodec_core7.so", "loaded": false, "error_kind": "missing_library",
       "missing_libraries": ["libavutil.so.59"], "variant_of": "libtorchcodec_core5.so"},
      {"path": "/s/torchcodec/libtorchcodec_custom_ops7.so", "loaded": false, "error_kind": "missing_library",
       "missing_libraries": ["libavutil.so.59", "libtorchcodec_core7.so"], "variant_of": "libtorchcodec_core5.so"}]})");
  const auto out = load_checks(report, "r");
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0].status, Status::pass);
  EXPECT_EQ(out[1].status, Status::pass);
  EXPECT_EQ(out[2].status, Status::skip);
  EXPECT_FALSE(out[2].diagnosis.has_value()) << out[2].diagnosis->kind;
  EXPECT_EQ(out[2].message, "3 builds of its library for other versions of FFmpeg (libavutil.so.56, libavcodec.so.58, "
                            "libavutil.so.59, not installed here), unused here: libtorchcodec_core4.so, "
                            "libtorchcodec_core7.so, libtorchcodec_custom_ops7.so — libtorchcodec_core5.so is the one "
                            "for the FFmpeg installed");
}

// xformers 0.0.35 in PyPI torch 2.1.2 (a bookworm image): its _C.so needs GCC 13's libstdc++
// (std::ios_base_library_init@GLIBCXX_3.4.32) and the stable ABI torch 2.1 lacks. The system's
// part comes first and is said as such, not as a symbol torch lacks.
TEST(LoadChecks, SymbolsOfANewerSystemRuntimeAreSaidApartFromTorchs) {
  const auto report = nlohmann::json::parse(R"J({"torch": "2.1.2+cu121",
    "libraries": [{"path": "/s/xformers/_C.so", "loaded": false, "error_kind": "undefined_symbol", "undefined_count": 3,
      "undefined": [{"symbol": "_ZSt21ios_base_library_initv", "demangled": "std::ios_base_library_init()"},
                    {"symbol": "aoti_torch_abi_version", "demangled": "aoti_torch_abi_version"},
                    {"symbol": "aoti_torch_dtype_bool", "demangled": "aoti_torch_dtype_bool"}],
      "system_runtime": {"versions": ["GLIBCXX_3.4.32"], "count": 1, "symbols": ["std::ios_base_library_init()"]}}]})J");
  const auto out = load_checks(report, "r");
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].status, Status::fail);
  EXPECT_EQ(out[0].message, "_C.so: needs a newer C/C++ runtime than this system has (1 symbol of GLIBCXX_3.4.32, e.g. "
                            "std::ios_base_library_init()), and 2 symbols this torch 2.1.2+cu121 does not define, e.g. "
                            "aoti_torch_abi_version");
  ASSERT_TRUE(out[0].diagnosis);
  EXPECT_EQ(out[0].diagnosis->kind, "undefined_symbol");
  auto only_system = report;
  only_system["libraries"][0]["undefined_count"] = 1;
  only_system["libraries"][0]["undefined"] = nlohmann::json::array({report["libraries"][0]["undefined"][0]});  // array(): {x} is x itself to clang
  const auto alone = load_checks(only_system, "r");
  ASSERT_TRUE(alone[0].diagnosis);
  EXPECT_EQ(alone[0].diagnosis->kind, "system_runtime_too_old");
  // The loader's "version `GLIBCXX_3.4.32' not found", no symbol named: the version is.
  auto version_only = only_system;
  version_only["libraries"][0]["undefined_count"] = 0;
  version_only["libraries"][0]["undefined"] = nlohmann::json::array();
  version_only["libraries"][0]["system_runtime"] = {{"versions", {"GLIBCXX_3.4.32"}}, {"count", 0}, {"symbols", nlohmann::json::array()}};
  EXPECT_EQ(load_checks(version_only, "r")[0].message,
            "_C.so: needs a newer C/C++ runtime than this system has (version GLIBCXX_3.4.32 not found)");
}

// IPEX 2.8.0 in torch 2.8: libintel-ext-pt-python.so lacks torch::jit::toPyObject alone; its
// _C.so, which loads, needs it and brings libtorch_python.so. As its users get it, it loads.
TEST(LoadChecks, ALibraryThatLoadsAsADependencyOfOneThatLoadsIsNoRed) {
  const auto report = nlohmann::json::parse(R"J({"torch": "2.8.0+cu128",
    "libraries": [{"path": "/s/ipex/_C.so", "loaded": true},
      {"path": "/s/ipex/lib/libintel-ext-pt-python.so", "loaded": false, "error_kind": "undefined_symbol",
       "undefined": [{"symbol": "_ZN5torch3jit10toPyObjectEN3c106IValueE", "demangled": "torch::jit::toPyObject(c10::IValue)"}],
       "loaded_as_dependency_of": "_C.so"}]})J");
  const auto out = load_checks(report, "r");
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[1].status, Status::pass);
  EXPECT_EQ(out[1].message, "libintel-ext-pt-python.so loads as a dependency of _C.so (dlopen RTLD_NOW of _C.so), the "
                            "way its package loads it; alone it lacks torch::jit::toPyObject(c10::IValue), which it does "
                            "not name a library for");
}

// dgl 2.1.0 in torch 2.15: builds of libgraphbolt for torch 2.0.0 ... 2.2.1, none for 2.15. One red
// naming the torches it has builds for, not one per build; the package's other libraries still count.
TEST(LoadChecks, BuildsPerTorchVersionWithNoneForThisTorchAreOneRed) {
  const auto report = nlohmann::json::parse(R"({"torch": "2.15.0+cu132",
    "libraries": [{"path": "/s/dgl/libdgl.so", "loaded": true},
      {"path": "/s/dgl/libgraphbolt_pytorch_2.0.0.so", "loaded": false, "error_kind": "undefined_symbol",
       "error": "undefined symbol: _ZN2at4_ops10empty_like4callE", "for_torch": "2.0.0", "build_of": "libgraphbolt"},
      {"path": "/s/dgl/libgraphbolt_pytorch_2.1.2.so", "loaded": false, "error_kind": "undefined_symbol",
       "for_torch": "2.1.2", "build_of": "libgraphbolt"},
      {"path": "/s/dgl/libgraphbolt_pytorch_2.2.1.so", "loaded": false, "error_kind": "undefined_symbol",
       "for_torch": "2.2.1", "build_of": "libgraphbolt"}]})");
  const auto out = load_checks(report, "r");
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].status, Status::pass);
  EXPECT_EQ(out[1].status, Status::fail);
  EXPECT_EQ(out[1].message, "libgraphbolt: no build for torch 2.15.0: the package has builds of it for torch 2.0.0, "
                            "2.1.2, 2.2.1 only (libgraphbolt_pytorch_2.0.0.so … libgraphbolt_pytorch_2.2.1.so)");
  ASSERT_TRUE(out[1].diagnosis);
  EXPECT_EQ(out[1].diagnosis->kind, "no_build_for_this_torch");
  EXPECT_NE(out[1].diagnosis->fix.find("(2.0.0, 2.1.2, 2.2.1)"), std::string::npos);
}

// torch-c-dlpack-ext 0.1.5 beside torch 2.14: builds for 2.4 … 2.9 (the older ones load alone, the
// 2.9 ones do not), none for 2.14, which has natively what they add: its import works and maps none
// of them. A limit of what is not seen here, never a red; every torch it has a build for is named.
TEST(LoadChecks, NoBuildForThisTorchThatTheWorkingImportDidNotLoadIsALimit) {
  auto report = nlohmann::json::parse(R"({"torch": "2.14.1",
    "import": {"module": "torch_c_dlpack_ext", "ok": true},
    "libraries": [
      {"path": "/s/t/libaddon_torch24-cpu.so", "loaded": true},
      {"path": "/s/t/libaddon_torch29-cpu.so", "loaded": false, "error_kind": "undefined_symbol", "for_torch": "2.9",
       "build_of": "libaddon", "builds_for": ["2.4", "2.9"], "unused_by_import": true},
      {"path": "/s/t/libaddon_torch29-cuda.so", "loaded": false, "error_kind": "missing_library", "for_torch": "2.9",
       "build_of": "libaddon", "builds_for": ["2.4", "2.9"], "unused_by_import": true}]})");
  auto out = load_checks(report, "r");
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[1].status, Status::skip);
  EXPECT_EQ(out[1].message, "libaddon: no build for torch 2.14.1: the package has builds of it for torch 2.4, 2.9 only "
                            "(libaddon_torch29-cpu.so … libaddon_torch29-cuda.so); import torch_c_dlpack_ext works "
                            "without one, loading none of them: what else would load one is not checked here");
  ASSERT_TRUE(out[1].diagnosis);
  EXPECT_EQ(out[1].diagnosis->kind, kNoBuildUnusedByImport);
  // An import that failed for want of it, or declined its extension, leaves it the red it was.
  report["import"]["ok"] = false;
  report["import"]["error"] = "ImportError: /s/t/libaddon_torch214-cpu.so: cannot open shared object file";
  EXPECT_EQ(load_checks(report, "r")[1].status, Status::fail);
  report["import"]["ok"] = true;
  report["import"]["declined"] = {"no prebuilt extension"};
  EXPECT_EQ(load_checks(report, "r")[1].status, Status::fail);
  // An import that failed first for another cause (torch-c-dlpack-ext beside torch 2.15: `packaging`
  // missing) says nothing of whether it needs one: not the pair's red, the import's is.
  report["import"] = {{"module", "torch_c_dlpack_ext"}, {"ok", false},
                      {"error", "ModuleNotFoundError: No module named 'packaging'"}};
  out = load_checks(report, "r");
  EXPECT_EQ(out[1].status, Status::skip);
  EXPECT_NE(out[1].message.find("; whether import torch_c_dlpack_ext needs one is not known here: it fails first, for "
                                "another cause"),
            std::string::npos)
      << out[1].message;
}

// torchpipe 0.2.25 in torch 2.14: builds for 2.2 … 2.12 and none for 2.14; its import compiles one
// and that compile fails. The red says so, the compiler's words its evidence.
TEST(LoadChecks, NoBuildForThisTorchNamesTheCompileAtImportThatFailed) {
  auto report = nlohmann::json::parse(R"({"torch": "2.14.1+debian",
    "import": {"module": "torchpipe", "ok": true, "declined": ["Failed to load or JIT compile builtin extensions"],
               "compile_errors": ["/usr/include/torch/all.h:5:2: error: #error C++20 or later compatible compiler is required to use PyTorch."]},
    "libraries": [
      {"path": "/s/torchpipe/lib/torchpipe_core-torch212-cpu-abiflag1.so", "loaded": false, "error_kind": "missing_library",
       "error": "libtvm_ffi.so: cannot open shared object file", "for_torch": "2.12", "build_of": "torchpipe_core"}]})");
  auto out = load_checks(report, "r");
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].message, "torchpipe_core: no build for torch 2.14.1: the package has builds of it for torch 2.12 only "
                            "(torchpipe_core-torch212-cpu-abiflag1.so); its import compiles one for this torch, and the "
                            "compile fails: error: #error C++20 or later compatible compiler is required to use PyTorch.");
  ASSERT_TRUE(out[0].diagnosis);
  EXPECT_EQ(out[0].diagnosis->evidence,
            "/usr/include/torch/all.h:5:2: error: #error C++20 or later compatible compiler is required to use PyTorch.");
  report["import"].erase("compile_errors");
  out = load_checks(report, "r");
  EXPECT_EQ(out[0].diagnosis->evidence, "libtvm_ffi.so: cannot open shared object file");
}

// torchpipe 0.2.25 in torch 2.12: its build for 2.12 does not load alone (a requirement's library
// lacks symbols that requirement's import loads first), and `import torchpipe` loads it.
TEST(LoadChecks, ALibraryTheImportLoadedIsNoRedWhateverItDoesAlone) {
  const auto report = nlohmann::json::parse(R"({"torch": "2.12.1+cu130", "import": {"module": "torchpipe", "ok": true},
    "libraries": [{"path": "/s/torchpipe/lib/torchpipe_core-torch212-cpu-abiflag1.so", "loaded": false,
                   "error_kind": "missing_library", "missing_libraries": ["libomniback.so"],
                   "error": "libomniback.so: cannot open shared object file", "loaded_by_import": true}]})");
  const auto out = load_checks(report, "r");
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].status, Status::pass);
  EXPECT_EQ(out[0].message.rfind("torchpipe_core-torch212-cpu-abiflag1.so loads as import torchpipe loads it (alone: ", 0),
            0u)
      << out[0].message;
  // Its ops are read as those of a package whose libraries all loaded.
  auto with_namespaces = report;
  with_namespaces["namespaces_added"] = nlohmann::json::object();
  EXPECT_EQ(not_a_dispatcher_library(with_namespaces, "r").message.rfind("registers no dispatcher op at import", 0), 0u)
      << not_a_dispatcher_library(with_namespaces, "r").message;
}

// metatensor-torch 0.10.8 in torch 2.15: one library name in a folder per torch (torch-2.3/lib/ …
// torch-2.14/lib/): the builds are told apart by their folders.
TEST(LoadChecks, BuildsPerTorchFolderAreNamedByTheirFolders) {
  const auto report = nlohmann::json::parse(R"({"torch": "2.15.0+cu132",
    "libraries": [
      {"path": "/s/metatensor_torch/torch-2.3/lib/libmetatensor_torch.so", "loaded": false, "error_kind": "undefined_symbol",
       "for_torch": "2.3", "build_of": "libmetatensor_torch.so", "build_label": "torch-2.3/lib/libmetatensor_torch.so"},
      {"path": "/s/metatensor_torch/torch-2.14/lib/libmetatensor_torch.so", "loaded": false, "error_kind": "undefined_symbol",
       "for_torch": "2.14", "build_of": "libmetatensor_torch.so", "build_label": "torch-2.14/lib/libmetatensor_torch.so"}]})");
  const auto out = load_checks(report, "r");
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].message, "libmetatensor_torch.so: no build for torch 2.15.0: the package has builds of it for torch 2.3, "
                            "2.14 only (torch-2.3/lib/libmetatensor_torch.so … torch-2.14/lib/libmetatensor_torch.so)");
}

// deepmd-kit 3.2.0's libdeepmd_lmpplugin.so, LAMMPS's plugin (load_library.py's "host_plugin"): not
// a torch library, so a skip naming whose symbols it lacks, never a red of the torch beside it; its
// sibling that lacks torch's symbols stays red.
TEST(LoadChecks, AnotherProgramsPluginIsNotJudgedAsATorchLibrary) {
  const auto report = nlohmann::json::parse(R"({"torch": "2.14.1",
    "libraries": [
      {"path": "/s/deepmd/lib/libdeepmd_lmpplugin.so", "loaded": false, "error_kind": "undefined_symbol",
       "error": "undefined symbol: MPI_Allgather", "undefined_count": 118, "torch_undefined_count": 0,
       "undefined_prefixes": ["MPI_", "LAMMPS_NS", "fmt"], "host_plugin": true,
       "undefined": [{"symbol": "MPI_Allgather", "demangled": "MPI_Allgather"}]},
      {"path": "/s/deepmd/lib/libdeepmd_op_pt.so", "loaded": false, "error_kind": "undefined_symbol",
       "undefined_count": 1, "torch_undefined_count": 1,
       "undefined": [{"symbol": "_ZN5torch8autograd8profiler15prepareProfilerE", "demangled": "torch::autograd::profiler::prepareProfiler"}]}]})");
  const auto out = load_checks(report, "r");
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].status, Status::skip);
  EXPECT_EQ(out[0].message,
            "libdeepmd_lmpplugin.so not checked here: a plugin of another program, not a torch library: it needs none "
            "of torch's libraries and lacks 118 symbol(s) that no library it needs defines, none of them torch's "
            "(MPI_…, LAMMPS_NS::…, fmt::…), which the program that loads it provides; the package's import does not "
            "load it");
  EXPECT_EQ(out[0].diagnosis ? out[0].diagnosis->kind : "", "host_plugin");
  EXPECT_EQ(out[1].status, Status::fail);
}

}  // namespace opmatrix

namespace opmatrix {

// cuequivariance-ops-torch in a CUDA torch on a machine without a GPU: its extension links the
// NVIDIA driver's libcuda.so.1 (and libcue_ops.so, which needs it too). Nothing about its load can
// be concluded here: not checked, never a red. Next to a CPU-only torch it stays red.
TEST(LoadChecks, ALibraryLinkedToTheGpuDriverIsNotCheckedWithoutOne) {
  auto report = nlohmann::json::parse(R"({"torch": "2.15.0", "torch_cuda": "13.2",
    "libraries": [{"path": "/s/pkg/_ext.so", "loaded": false, "error_kind": "missing_library",
                   "missing_libraries": ["libcue_ops.so", "libcuda.so.1"]}]})");
  auto out = load_checks(report, "r");
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].message, "_ext.so not checked here: it links the NVIDIA driver's libcuda.so.1, which only a machine "
                            "with a GPU and its driver has (it also lacks here: libcue_ops.so, libcuda.so.1 (not in "
                            "this runtime))");
  EXPECT_EQ(out[0].status, Status::skip);
  EXPECT_EQ(out[0].diagnosis ? out[0].diagnosis->kind : "", "needs_gpu_driver");
  const CheckResult import = explained_by_library_failure(
      testbed::check_result("load", Status::fail, "", "", "import pkg failed: ImportError: libcue_ops.so: cannot open "
                                                          "shared object file"),
      out);
  EXPECT_EQ(import.status, Status::skip);
  report["torch_cuda"] = nullptr;
  out = load_checks(report, "r");
  EXPECT_EQ(out[0].status, Status::fail);
}

// cuequivariance-ops-torch 0.7.0: its extension NEEDs libcue_ops.so alone, which its requirement
// cuequivariance-ops ships and loads first; that one needs the driver's libcuda.so.1. Where the
// requirement's library is there but does not load, the red says what it lacks (never "not in
// this runtime": pip installed it), and a CUDA torch without a GPU is not checked, as above.
TEST(LoadChecks, ALibraryOfARequirementThatDoesNotLoadIsNamedWithWhatItLacks) {
  auto report = nlohmann::json::parse(R"({"torch": "2.6.0+debian", "torch_cuda": null,
    "libraries": [{"path": "/s/pkg/_ext.so", "loaded": false, "error_kind": "missing_library",
                   "missing_libraries": ["libcue_ops.so"],
                   "missing_through": {"libcue_ops.so": {"path": "/d/ops/lib/libcue_ops.so",
                                                         "missing": ["libnvrtc.so.12", "libcuda.so.1"]}}}]})");
  auto out = load_checks(report, "r");
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].status, Status::fail);
  EXPECT_EQ(out[0].message, "_ext.so: needs libcue_ops.so (there, at /d/ops/lib/libcue_ops.so, but it needs "
                            "libnvrtc.so.12, libcuda.so.1, not in this runtime)");
  report["torch_cuda"] = "12.4";
  out = load_checks(report, "r");
  EXPECT_EQ(out[0].status, Status::skip);
  EXPECT_EQ(out[0].diagnosis ? out[0].diagnosis->kind : "", "needs_gpu_driver");
}

}  // namespace opmatrix

namespace opmatrix {

// dgl's libdgl_sparse_pytorch_2.0.0.so needs libdgl.so, which loads: never "which does not load
// here", but what is true — the package must load it first.
TEST(LoadChecks, ASiblingThatLoadsIsNotCalledOneThatDoesNot) {
  const auto lib = nlohmann::json::parse(R"({"path": "/s/dgl/libdgl_sparse.so", "loaded": false,
    "error_kind": "missing_library", "missing_libraries": ["libdgl.so", "libgone.so"]})");
  EXPECT_EQ(load_failure_summary(lib, {"libdgl.so", "libgone.so"}, {"libdgl.so"}),
            "needs libgone.so (its package's own, which does not load here); libdgl.so (its package's own, which "
            "loads, but which this library does not find by itself: the package must load it first)");
}

}  // namespace opmatrix

namespace opmatrix {

// torchcodec 0.9.1 where no FFmpeg is installed: every build of its core needs FFmpeg's libraries
// (its README asks users to install FFmpeg 4-8), its custom ops need the core, and the import
// says "Could not load libtorchcodec. Likely causes: 1. FFmpeg is not properly installed". Not
// checked here, said once per library, the import and the registration pointing to it; a torch
// library it lacks (libc10_cuda.so) keeps the red.
TEST(LoadChecks, ALibraryThatNeedsOnlyASystemLibraryItsUsersInstallIsNotCheckedWithoutIt) {
  auto report = nlohmann::json::parse(R"({"torch": "2.6.0", "torch_cuda": null, "libraries": [
    {"path": "/s/torchcodec/libtorchcodec_core5.so", "loaded": false, "error_kind": "missing_library",
     "missing_libraries": ["libavutil.so.57", "libavcodec.so.59", "libavdevice.so.59"]},
    {"path": "/s/torchcodec/libtorchcodec_custom_ops5.so", "loaded": false, "error_kind": "missing_library",
     "missing_libraries": ["libavutil.so.57", "libtorchcodec_core5.so"]}]})");
  auto out = load_checks(report, "r");
  ASSERT_EQ(out.size(), 2u);
  for (const auto& c : out) {
    EXPECT_EQ(c.status, Status::skip) << c.message;
    EXPECT_EQ(c.diagnosis ? c.diagnosis->kind : "", "needs_system_library");
  }
  EXPECT_EQ(out[0].message, "libtorchcodec_core5.so not checked here: it needs FFmpeg's libraries (libavutil.so.57, "
                            "libavcodec.so.59, libavdevice.so.59), a system library its users install themselves (pip "
                            "brings none), and this runtime has not that version of it");
  const CheckResult import = explained_by_library_failure(
      testbed::check_result("load", Status::fail, "", "", "import torchcodec failed: RuntimeError: Could not load "
                                                          "libtorchcodec. Likely causes: 1. FFmpeg is not properly installed"),
      out);
  EXPECT_EQ(import.status, Status::skip);
  CheckResult registration = testbed::check_result("registration", Status::fail, "", "",
                                                   "no op is registered in namespace 'torchcodec_ns' after loading the library");
  registration.diagnosis = Diagnosis{"not_registered", registration.message, "", "r", ""};
  EXPECT_EQ(unregistered_for_want_of_load(registration, out).status, Status::skip);

  // The loader has another version of it (Debian sid's FFmpeg, newer than any build of it): named.
  auto newer = report;
  newer["libraries"][0]["other_versions"] = {{"libavutil.so.57", {"libavutil.so.61"}},
                                             {"libavcodec.so.59", {"libavcodec.so.63"}}};
  const auto with_newer = load_checks(newer, "r");
  EXPECT_EQ(with_newer[0].status, Status::skip);
  EXPECT_EQ(with_newer[0].message, out[0].message + " (it has libavutil.so.61, libavcodec.so.63)");

  // A torch library among what it lacks: the red stands (and its sibling's with it).
  report["libraries"][0]["missing_libraries"].push_back("libc10_cuda.so");
  out = load_checks(report, "r");
  EXPECT_EQ(out[0].status, Status::fail);
  EXPECT_EQ(unregistered_for_want_of_load(registration, {out[0]}).status, Status::fail);
}

// deepmd-kit 3.2.0 in Debian's torch 2.14: its TensorFlow op libraries lack TensorFlow's (not
// checked here), and its import fails for another library's cause (mpich's libmpi.so.12 meets the
// system's libfabric.so.1, which Debian's torch loaded first): that failure is the import's own red.
TEST(LoadChecks, AnImportFailingForAnotherLibraryIsNotExplainedByATensorFlowLibrary) {
  const auto report = nlohmann::json::parse(R"({"torch": "2.14.1", "torch_cuda": null, "libraries": [
    {"path": "/s/deepmd/lib/libdeepmd_op.so", "loaded": false, "error_kind": "missing_library",
     "missing_libraries": ["libtensorflow_framework.so.2"]}]})");
  const auto out = load_checks(report, "r");
  // Its one library (of this trimmed report) is TensorFlow's: none for this runtime, named once.
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].status, Status::skip);
  EXPECT_EQ(out[1].diagnosis ? out[1].diagnosis->kind : "", "for_another_runtime");
  const CheckResult failed = testbed::check_result(
      "load", Status::fail, "", "",
      "import deepmd.pt failed: OSError: /usr/lib/x86_64-linux-gnu/libfabric.so.1: version `FABRIC_1.9' not found "
      "(required by /build/deps-data/lib/libmpi.so.12)");
  EXPECT_EQ(explained_by_library_failure(failed, out).status, Status::fail);
  // One naming the library TensorFlow's users load is that one's lack.
  const CheckResult tf = testbed::check_result(
      "load", Status::fail, "", "", "import deepmd.tf failed: OSError: libtensorflow_framework.so.2: cannot open");
  EXPECT_EQ(explained_by_library_failure(tf, out).status, Status::skip);
}

// deepmd-kit 3.2.0 in PyPI's torch 2.11, where deepmd.pt imports: its TensorFlow op library is
// still TensorFlow's, not an optional backend of its torch side (which would read as a limit).
TEST(LoadChecks, AnotherFrameworksLibraryIsNoOptionalBackendWhereTheImportWorks) {
  const auto report = nlohmann::json::parse(R"({"torch": "2.11.0", "torch_cuda": "13.0", "libraries": [
    {"path": "/s/deepmd/lib/libdeepmd_op_pt.so", "loaded": true},
    {"path": "/s/deepmd/lib/libdeepmd_op.so", "loaded": false, "error_kind": "missing_library", "optional": true,
     "missing_libraries": ["libtensorflow_framework.so.2"]},
    {"path": "/s/torchaudio/lib/_torio_ffmpeg6.so", "loaded": false, "error_kind": "missing_library", "optional": true,
     "missing_libraries": ["libavutil.so.58"]}]})");
  const auto out = load_checks(report, "r");
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[1].status, Status::skip);
  EXPECT_NE(out[1].message.find("a TensorFlow op library"), std::string::npos) << out[1].message;
  // Its own kind: no part of the torch side's verdict (a system library's lack leaves a pair unjudged).
  EXPECT_EQ(out[1].diagnosis ? out[1].diagnosis->kind : "", "another_frameworks_library");
  // A system library its users install stays an optional backend.
  EXPECT_EQ(out[2].diagnosis ? out[2].diagnosis->kind : "", "optional_backend_unavailable");
}

// vllm-xpu-kernels 0.1.16.2 beside Debian's CPU torch 2.6: every library links torch's XPU build
// and oneAPI's SYCL runtime, one of them through its package's libattn_kernels_xe_2.so; its
// import works (its Python defers them). Nothing of it is for this runtime: not judged, never an
// optional backend (it read "◐ works with limits").
TEST(LoadChecks, APackageWhoseLibrariesAreAllForAnotherDeviceIsNotJudged) {
  const auto report = nlohmann::json::parse(R"({"torch": "2.6.0+debian", "torch_cuda": null,
    "import": {"module": "vllm_xpu_kernels", "ok": true}, "libraries": [
    {"path": "/s/vllm_xpu_kernels/_vllm_fa2_C.abi3.so", "loaded": false, "error_kind": "missing_library", "optional": true,
     "missing_libraries": ["libattn_kernels_xe_2.so", "libc10_xpu.so", "libtorch_xpu.so", "libsycl.so.9", "libintlc.so.5"],
     "missing_through": {"libattn_kernels_xe_2.so": {"path": "/s/vllm_xpu_kernels/libattn_kernels_xe_2.so",
       "missing": ["libc10_xpu.so", "libtorch_xpu.so", "libsycl.so.9", "libintlc.so.5"]}}},
    {"path": "/s/vllm_xpu_kernels/libattn_kernels_xe_2.so", "loaded": false, "error_kind": "missing_library",
     "optional": true, "missing_libraries": ["libc10_xpu.so", "libtorch_xpu.so", "libsycl.so.9", "libintlc.so.5"]}]})");
  const auto out = load_checks(report, "r");
  ASSERT_EQ(out.size(), 3u);
  for (std::size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(out[i].status, Status::skip) << out[i].message;
    EXPECT_EQ(out[i].diagnosis ? out[i].diagnosis->kind : "", "another_frameworks_library") << out[i].message;
    EXPECT_NE(out[i].message.find("a library for Intel GPUs (XPU)"), std::string::npos) << out[i].message;
  }
  EXPECT_EQ(out[2].diagnosis ? out[2].diagnosis->kind : "", "for_another_runtime");
  EXPECT_NE(out[2].message.find("vllm_xpu_kernels not checked here: none of its 2 compiled libraries is for this "
                                "runtime (torch 2.6.0+debian)"),
            std::string::npos)
      << out[2].message;
  EXPECT_NE(out[2].diagnosis->fix.find("https://download.pytorch.org/whl/xpu"), std::string::npos);

  // One library for this runtime that loads: the XPU one is named, the package is judged by the rest.
  auto mixed = report;
  mixed["libraries"].push_back({{"path", "/s/vllm_xpu_kernels/_cpu_C.so"}, {"loaded", true}});
  const auto judged = load_checks(mixed, "r");
  EXPECT_TRUE(std::none_of(judged.begin(), judged.end(), [](const CheckResult& c) {
    return c.diagnosis && c.diagnosis->kind == "for_another_runtime";
  }));
}

// bigdl-core-xe-21 2.6.0 (ipex-llm's XPU kernels) beside PyPI's CUDA torch 2.13: its one extension
// needs the XPU build of Intel's extension for PyTorch and oneAPI's runtime; its import fails for
// the first of them. Not checked here, the device named (it read "✘ broken: needs libsycl.so.7 …").
TEST(LoadChecks, AnExtensionForIntelGpusBesideACudaTorchIsNotJudged) {
  const auto report = nlohmann::json::parse(R"({"torch": "2.13.0+cu130", "torch_cuda": "13.0",
    "import": {"module": "xe_linear", "ok": false}, "libraries": [
    {"path": "/s/xe_linear.cpython-311-x86_64-linux-gnu.so", "loaded": false, "error_kind": "missing_library",
     "missing_libraries": ["libsycl.so.7", "libOpenCL.so.1", "libimf.so", "libdnnl.so.3", "libintel-ext-pt-gpu.so",
                           "libsvml.so", "libirng.so", "libintlc.so.5"]}]})");
  const auto out = load_checks(report, "r");
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].status, Status::skip) << out[0].message;
  EXPECT_NE(out[0].message.find("Intel's extension for PyTorch (its XPU build)'s libraries (libintel-ext-pt-gpu.so)"),
            std::string::npos)
      << out[0].message;
  EXPECT_EQ(out[1].diagnosis ? out[1].diagnosis->kind : "", "for_another_runtime");
  EXPECT_NE(out[1].message.find("xe_linear not checked here: its one compiled library is not for this runtime "
                                "(torch 2.13.0+cu130): it is another device's"),
            std::string::npos)
      << out[1].message;
  const CheckResult import = testbed::check_result(
      "load", Status::fail, "", "",
      "import xe_linear failed: ImportError: libsycl.so.7: cannot open shared object file: No such file or directory");
  EXPECT_EQ(explained_by_library_failure(import, out).status, Status::skip);

  // Intel's compiler runtime alone (libimf.so, which CPU builds link too) says nothing of a device:
  // a library that lacks only it stays red.
  auto cpu = report;
  cpu["libraries"][0]["missing_libraries"] = {"libimf.so", "libsvml.so"};
  const auto red = load_checks(cpu, "r");
  ASSERT_FALSE(red.empty());
  EXPECT_EQ(red[0].status, Status::fail) << red[0].message;
}

// mindie-turbo 2.0rc1 beside PyPI's torch 2.15: its pin typing-extensions==4.12.2 is found before
// torch's 4.15.0, and `import torch` fails for a name 4.12.2 lacks: a red naming both releases. A
// failing import torch whose error names none of them stays the load step's own.
TEST(LoadChecks, ARequirementInAnotherReleaseOfTorchsRequirementIsNamedWhereTheErrorNamesIt) {
  auto report = nlohmann::json::parse(R"J({"error": "import torch: ImportError: cannot import name 'Format' from 'typing_extensions' (/build/deps/typing_extensions.py)",
    "over_torch_distributions": [{"name": "filelock", "version": "3.16.1", "over": "3.20.0", "modules": ["filelock"]},
      {"name": "typing_extensions", "version": "4.12.2", "over": "4.15.0", "modules": ["typing_extensions"]}]})J");
  auto out = load_checks(report, "r");
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].status, Status::fail);
  ASSERT_TRUE(out[0].diagnosis);
  EXPECT_EQ(out[0].diagnosis->kind, "requirement_replaces_torch_requirement");
  EXPECT_EQ(out[0].message, "import torch fails once it is installed with its requirements: they install "
                            "typing_extensions 4.12.2, where torch has typing_extensions 4.15.0 (ImportError: cannot "
                            "import name 'Format' from 'typing_extensions' (/build/deps/typing_extensions.py))");
  EXPECT_NE(out[0].diagnosis->fix.find("pip install typing_extensions==4.15.0"), std::string::npos);
  report["error"] = "import torch: ImportError: libcudnn.so.9: cannot open shared object file";
  out = load_checks(report, "r");
  EXPECT_TRUE(out.empty() || !out[0].diagnosis || out[0].diagnosis->kind != "requirement_replaces_torch_requirement");
}

// mindie-turbo 2.0rc1 beside PyPI's CUDA torch 2.13: its extensions link torch-npu's libtorch_npu.so
// and Ascend's CANN and ATB; its libturbo_kernels.so links CANN alone. For Ascend NPUs, as an XPU
// build is for Intel GPUs: not judged here (it read "✘ needs libmki.so, …, libtorch_npu.so …").
TEST(LoadChecks, ExtensionsForTorchNpuBesideACudaTorchAreNotJudged) {
  const auto report = nlohmann::json::parse(R"({"torch": "2.13.0+cu130", "torch_cuda": "13.0",
    "import": {"module": "mindie_turbo", "ok": false}, "libraries": [
    {"path": "/s/mindie_turbo/_ops.cpython-311-x86_64-linux-gnu.so", "loaded": false, "error_kind": "missing_library",
     "missing_libraries": ["libmki.so", "libasdops.so", "liblcal.so", "libtorch_npu.so", "libatb_mixops.so",
                           "libascendcl.so"]},
    {"path": "/s/mindie_turbo/libturbo_kernels.so", "loaded": false, "error_kind": "missing_library",
     "missing_libraries": ["libascend_dump.so", "libc_sec.so"]},
    {"path": "/s/mindie_turbo/turbo_torch.cpython-311-x86_64-linux-gnu.so", "loaded": false,
     "error_kind": "missing_library", "missing_libraries": ["libtorch_npu.so", "libplatform.so", "libturbo_kernels.so"],
     "missing_through": {"libturbo_kernels.so": {"missing": ["libascend_dump.so", "libc_sec.so"]}}}]})");
  const auto out = load_checks(report, "r");
  ASSERT_FALSE(out.empty());
  EXPECT_TRUE(std::none_of(out.begin(), out.end(), [](const CheckResult& c) { return c.status == Status::fail; }));
  // The two extensions: torch-npu's row, which takes CANN's libraries from the CANN row.
  EXPECT_EQ(std::count_if(out.begin(), out.end(), [](const CheckResult& c) {
              return c.message.find("needs torch-npu and Ascend's CANN's libraries (") != std::string::npos &&
                     c.message.find("a library for Ascend NPUs") != std::string::npos;
            }),
            2);
  // CANN alone, without torch-npu's library: a system library its users install, as before.
  auto cann = report;
  cann["libraries"] = nlohmann::json::array({report["libraries"][1]});
  const auto alone = load_checks(cann, "r");
  ASSERT_FALSE(alone.empty());
  EXPECT_EQ(alone[0].diagnosis ? alone[0].diagnosis->kind : "", "needs_system_library") << alone[0].message;
  EXPECT_NE(alone[0].message.find("Ascend CANN"), std::string::npos) << alone[0].message;
}

// xfastertransformer 2.1.2: libxft_comm_helper.so needs MPI's and oneCCL's libraries, which its
// package loads only under mpirun, whose users install them: not checked here, both named.
TEST(LoadChecks, MpiAndOneCclAreSystemLibrariesItsUsersInstall) {
  const auto report = nlohmann::json::parse(R"({"torch": "2.13.0+cu130", "torch_cuda": "13.0", "libraries": [
    {"path": "/s/xfastertransformer/libxft_comm_helper.so", "loaded": false, "error_kind": "missing_library",
     "missing_libraries": ["libccl.so.1", "libmpicxx.so.12", "libmpi.so.12"]}]})");
  const auto out = load_checks(report, "r");
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].status, Status::skip) << out[0].message;
  EXPECT_EQ(out[0].diagnosis ? out[0].diagnosis->kind : "", "needs_system_library");
  EXPECT_NE(out[0].message.find("MPI's libraries (libmpicxx.so.12, libmpi.so.12), oneCCL's (libccl.so.1)"),
            std::string::npos)
      << out[0].message;
}

// bmtrain 1.0.1 beside PyPI's torch 2.13: its requirement nvidia-nccl-cu11 installs
// nvidia/nccl/lib/libnccl.so.2 over torch's nvidia-nccl-cu13 one, and import torch fails. Every
// user's pip install does it: a red naming both packages, never an error of the step.
TEST(LoadChecks, ARequirementThatReplacesALibraryOfTorchsIsRed) {
  const auto report = nlohmann::json::parse(R"({"torch": null, "torch_cuda": null, "libraries": [],
    "error": "import torch: ImportError: /opt/venv/lib/python3.11/site-packages/torch/lib/libtorch_cuda.so: undefined symbol: ncclCommResume",
    "over_torch_libraries": [{"file": "nvidia/nccl/lib/libnccl.so.2", "by": "nvidia-nccl-cu11 2.21.5",
                               "over": "nvidia-nccl-cu13 2.29.7"}]})");
  const auto out = load_checks(report, "r");
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].status, Status::fail);
  EXPECT_EQ(out[0].diagnosis ? out[0].diagnosis->kind : "", "requirement_replaces_torch_library");
  EXPECT_NE(out[0].message.find("nvidia-nccl-cu11 2.21.5 installs nvidia/nccl/lib/libnccl.so.2, which torch's "
                                "requirement nvidia-nccl-cu13 2.29.7 installs too"),
            std::string::npos)
      << out[0].message;
  EXPECT_NE(out[0].message.find("undefined symbol: ncclCommResume"), std::string::npos);
  EXPECT_NE(out[0].diagnosis->fix.find("pip install --force-reinstall --no-deps nvidia-nccl-cu13==2.29.7"),
            std::string::npos)
      << out[0].diagnosis->fix;
  // Without that finding, import torch's failure stays the step's error it was.
  auto plain = report;
  plain.erase("over_torch_libraries");
  EXPECT_EQ(load_checks(plain, "r")[0].status, Status::error);
}

// IPEX 2.8.0 beside torch 2.5.1: _C.so lacks InitIpexBindings because the sibling it needs,
// libintel-ext-pt-python.so, does not load (torch's symbols). The sibling's red comes first, and
// _C.so's names it, never "symbols this torch does not define".
TEST(LoadChecks, ALibraryWhoseNeededSiblingFailsNamesItAndComesAfterIt) {
  const auto report = nlohmann::json::parse(R"json({"torch": "2.5.1", "libraries": [
    {"path": "/s/ipex/_C.so", "loaded": false, "error_kind": "undefined_symbol", "needs_failing": ["libintel-ext-pt-python.so"],
     "undefined": [{"symbol": "_Z16InitIpexBindings", "demangled": "InitIpexBindings(pybind11::module_&)"}]},
    {"path": "/s/ipex/libintel-ext-pt-python.so", "loaded": false, "error_kind": "undefined_symbol",
     "undefined": [{"symbol": "x", "demangled": "at::RecordFunction::before()"}]}]})json");
  const auto out = load_checks(report, "r");
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].message, "libintel-ext-pt-python.so: undefined symbol: at::RecordFunction::before()");
  EXPECT_EQ(out[1].message, "_C.so: needs libintel-ext-pt-python.so (its package's own, which does not load here), "
                            "and so: undefined symbol: InitIpexBindings(pybind11::module_&)");
  ASSERT_TRUE(out[1].diagnosis);
  EXPECT_EQ(out[1].diagnosis->summary.rfind("_C.so needs its package's libintel-ext-pt-python.so, which does not load "
                                            "here", 0), 0u) << out[1].diagnosis->summary;
}

// torchaudio 2.9.1 beside torch 2.10: _torchaudio.so NEEDs libtorchaudio.so, which is there and
// lacks a symbol of this torch; the sibling's red comes first, whatever the files' order.
TEST(LoadChecks, ALibraryThatNeedsASiblingThatDoesNotLoadComesAfterIt) {
  const auto report = nlohmann::json::parse(R"json({"torch": "2.10.0", "libraries": [
    {"path": "/s/torchaudio/lib/_torchaudio.so", "loaded": false, "error_kind": "missing_library",
     "missing_libraries": ["libtorchaudio.so"]},
    {"path": "/s/torchaudio/lib/libtorchaudio.so", "loaded": false, "error_kind": "undefined_symbol",
     "undefined": [{"symbol": "x", "demangled": "c10::MessageLogger::MessageLogger(char const*, int, int)"}]}]})json");
  const auto out = load_checks(report, "r");
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].message, "libtorchaudio.so: undefined symbol: c10::MessageLogger::MessageLogger(char const*, int, int)");
  EXPECT_EQ(out[1].message, "_torchaudio.so: needs libtorchaudio.so (its package's own, which does not load here)");
}

// torchaudio 2.4.1 beside torch 2.5.1 (its import fails for another reason, so nothing tells its
// SoX backend optional): libtorchaudio_sox.so needs SoX's libsox.so, which torchaudio asks users to
// install, and _torchaudio_sox.so needs only that sibling; fairseq2n's library needs libsndfile.
TEST(LoadChecks, SoXAndLibsndfileAreSystemLibrariesItsUsersInstallAlsoThroughASibling) {
  const auto report = nlohmann::json::parse(R"({"torch": "2.5.1", "torch_cuda": "12.4", "libraries": [
    {"path": "/s/torchaudio/lib/libtorchaudio_sox.so", "loaded": false, "error_kind": "missing_library",
     "missing_libraries": ["libsox.so"]},
    {"path": "/s/torchaudio/lib/_torchaudio_sox.so", "loaded": false, "error_kind": "missing_library",
     "missing_libraries": ["libtorchaudio_sox.so"]},
    {"path": "/s/fairseq2n/lib/libfairseq2n.so.0", "loaded": false, "error_kind": "missing_library",
     "missing_libraries": ["libsndfile.so.1"]}]})");
  const auto out = load_checks(report, "r");
  ASSERT_EQ(out.size(), 3u);
  for (const auto& c : out) EXPECT_EQ(c.diagnosis ? c.diagnosis->kind : "", "needs_system_library") << c.message;
  EXPECT_EQ(out[1].message, "_torchaudio_sox.so not checked here: it needs SoX's libraries (libsox.so) through its package's "
                            "libtorchaudio_sox.so, a system library its users install themselves (pip brings none), and "
                            "this runtime has not that version of it");
  EXPECT_NE(out[2].diagnosis->fix.find("apt install libsndfile1"), std::string::npos);
}

// torch-npu 2.4.0 beside PyPI's torch 2.4.1, without Ascend's CANN: libtorch_npu.so needs CANN's
// libhccl.so and its libtensorpipe.so (which needs CANN too) and libnpu_profiler.so, which alone
// lacks c10_npu::… (libtorch_npu.so defines it and NEEDs it back) and CANN's aclAppLog; _C.so needs
// CANN and libtorch_npu.so. None is a finding here: each is not checked for want of CANN. The
// same sibling lacking a torch symbol as well (a torch-npu built for another torch) keeps its red.
TEST(LoadChecks, ALibraryLoadedOnlyWithASiblingThatLacksASystemLibraryIsNotCheckedEither) {
  auto report = nlohmann::json::parse(R"json({"torch": "2.4.1", "torch_cuda": "12.1", "libraries": [
    {"path": "/s/torch_npu/lib/libnpu_profiler.so", "loaded": false, "error_kind": "undefined_symbol",
     "undefined": [{"symbol": "a", "demangled": "c10_npu::option::OptionsManager::isACLGlobalLogOn(aclLogLevel)"},
                   {"symbol": "aclAppLog", "demangled": "aclAppLog"}],
     "undefined_count": 2, "torch_undefined_count": 0, "dependency_of_failing": ["libtorch_npu.so"],
     "defined_by_them": 1},
    {"path": "/s/torch_npu/lib/libtensorpipe.so", "loaded": false, "error_kind": "missing_library",
     "missing_libraries": ["libhccl.so"]},
    {"path": "/s/torch_npu/lib/libtorch_npu.so", "loaded": false, "error_kind": "missing_library",
     "missing_libraries": ["libhccl.so", "libascendcl.so", "libtensorpipe.so", "libnpu_profiler.so"]},
    {"path": "/s/torch_npu/_C.cpython-311-x86_64-linux-gnu.so", "loaded": false, "error_kind": "missing_library",
     "missing_libraries": ["libhccl.so", "libtorch_npu.so"]}]})json");
  auto out = load_checks(report, "r");
  ASSERT_EQ(out.size(), 4u);
  for (const auto& c : out) {
    EXPECT_EQ(c.status, Status::skip) << c.message;
    EXPECT_EQ(c.diagnosis ? c.diagnosis->kind : "", "needs_system_library") << c.message;
  }
  EXPECT_EQ(out[0].message.rfind("libnpu_profiler.so not checked here: its package loads it only with libtorch_npu.so, "
                                 "which needs it and defines 1 of the 2 symbol(s) it lacks alone (e.g. "
                                 "c10_npu::option::OptionsManager::isACLGlobalLogOn(aclLogLevel)); libtorch_npu.so not "
                                 "checked here: it needs Ascend CANN's libraries (libhccl.so, libascendcl.so)", 0),
            0u)
      << out[0].message;
  report["libraries"][0]["torch_undefined_count"] = 1;  // c10::TensorImpl::decref_pyobject, of a newer torch
  out = load_checks(report, "r");
  const auto red = std::find_if(out.begin(), out.end(), [](const CheckResult& c) { return is_bad(c.status); });
  ASSERT_NE(red, out.end());
  EXPECT_EQ(red->message.rfind("libnpu_profiler.so: undefined symbol", 0), 0u) << red->message;
}

// Open3D 0.20.0 beside Debian's CPU torch 2.6: libOpen3D.so lacks OpenGL's libEGL.so.1 and
// libGL.so.1 and libusb's libusb-1.0.so.0 at once (system libraries its docs ask headless users
// to install), its pybind module and its TensorFlow op library need libOpen3D, and the TensorFlow
// ops also TensorFlow's own library, which only TensorFlow's users load. None of those is a
// finding of Open3D with this torch; its torch ops, built against a CUDA torch, keep their red.
TEST(LoadChecks, SeveralSystemLibrariesAndAnotherFrameworksRuntimeAreNotCheckedHere) {
  const auto report = nlohmann::json::parse(R"({"torch": "2.6.0", "torch_cuda": null, "libraries": [
    {"path": "/s/open3d/cpu/libOpen3D.so.0.20", "loaded": false, "error_kind": "missing_library",
     "missing_libraries": ["libEGL.so.1", "libusb-1.0.so.0", "libGL.so.1"]},
    {"path": "/s/open3d/cpu/pybind.cpython-313-x86_64-linux-gnu.so", "loaded": false, "error_kind": "missing_library",
     "missing_libraries": ["libOpen3D.so.0.20"]},
    {"path": "/s/open3d/cpu/open3d_tf_ops.so", "loaded": false, "error_kind": "missing_library",
     "missing_libraries": ["libtensorflow_framework.so.2", "libOpen3D.so.0.20"]},
    {"path": "/s/open3d/cpu/open3d_torch_ops.so", "loaded": false, "error_kind": "missing_library",
     "missing_libraries": ["libc10_cuda.so", "libtorch_cuda.so", "libcudart.so.12", "libOpen3D.so.0.20"]}]})");
  const auto out = load_checks(report, "r");
  ASSERT_EQ(out.size(), 4u);
  auto find = [&](const std::string& prefix) {
    for (const auto& c : out)
      if (c.message.rfind(prefix, 0) == 0) return c;
    ADD_FAILURE() << "no result for " << prefix;
    return CheckResult{};
  };
  const CheckResult core = find("libOpen3D.so.0.20");
  EXPECT_EQ(core.status, Status::skip);
  EXPECT_EQ(core.message, "libOpen3D.so.0.20 not checked here: it needs OpenGL's libraries (libEGL.so.1, libGL.so.1), "
                          "libusb's (libusb-1.0.so.0), system libraries its users install themselves (pip brings "
                          "none), and this runtime has not them");
  ASSERT_TRUE(core.diagnosis);
  EXPECT_EQ(core.diagnosis->kind, "needs_system_library");
  EXPECT_NE(core.diagnosis->fix.find("apt install libgl1 libegl1"), std::string::npos) << core.diagnosis->fix;
  EXPECT_NE(core.diagnosis->fix.find("apt install libusb-1.0-0"), std::string::npos) << core.diagnosis->fix;
  EXPECT_EQ(find("pybind").status, Status::skip);
  const CheckResult tf = find("open3d_tf_ops.so");
  EXPECT_EQ(tf.status, Status::skip) << tf.message;
  EXPECT_NE(tf.message.find("a TensorFlow op library: only TensorFlow's users load it"), std::string::npos) << tf.message;
  const CheckResult torch_ops = find("open3d_torch_ops.so");
  EXPECT_EQ(torch_ops.status, Status::fail) << "a torch library it lacks keeps the red";
}

// Beside PyPI's torch 2.15 (CUDA 13.2) on a machine without a GPU: sgl-kernel 0.3.21's libraries
// lack the driver's libcuda.so.1 and CUDA 12's libcudart.so.12 (a CUDA 12 build: red whatever the
// GPU), fbgemm_gpu 1.9.0's fbgemm_gpu_py.so lacks only NVML's libnvidia-ml.so.1 (the driver's: not
// checked here), and Open3D's libOpen3D.so and SGLang's mscclpp lack X11's and NUMA's libraries.
TEST(LoadChecks, AnotherCudaMajorIsRedEvenBesideTheDriversLibraryAndNvmlIsTheDrivers) {
  const auto report = nlohmann::json::parse(R"({"torch": "2.15.0", "torch_cuda": "13.2", "libraries": [
    {"path": "/s/sgl_kernel/flash_ops.abi3.so", "loaded": false, "error_kind": "missing_library",
     "missing_libraries": ["libnvrtc.so.12", "libcuda.so.1", "libcudart.so.12"]},
    {"path": "/s/fbgemm_gpu/fbgemm_gpu_py.so", "loaded": false, "error_kind": "missing_library",
     "missing_libraries": ["libnvidia-ml.so.1"]},
    {"path": "/s/open3d/libOpen3D.so.0.20", "loaded": false, "error_kind": "missing_library",
     "missing_libraries": ["libEGL.so.1", "libX11.so.6", "libusb-1.0.so.0", "libGL.so.1", "libnuma.so.1"]}]})");
  const auto out = load_checks(report, "r");
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0].status, Status::fail);
  EXPECT_EQ(out[0].message, "flash_ops.abi3.so: built for CUDA 12: needs libnvrtc.so.12, and this runtime's torch has "
                            "CUDA 13.2");
  EXPECT_EQ(out[1].status, Status::skip);
  EXPECT_EQ(out[1].diagnosis ? out[1].diagnosis->kind : "", "needs_gpu_driver");
  EXPECT_NE(out[1].message.find("the NVIDIA driver's libnvidia-ml.so.1"), std::string::npos) << out[1].message;
  EXPECT_EQ(out[2].status, Status::skip) << out[2].message;
  ASSERT_TRUE(out[2].diagnosis);
  EXPECT_NE(out[2].diagnosis->fix.find("apt install libx11-6"), std::string::npos) << out[2].diagnosis->fix;
  EXPECT_NE(out[2].diagnosis->fix.find("apt install libnuma1"), std::string::npos) << out[2].diagnosis->fix;
}

// uccl 0.0.1.post4 beside PyPI's torch 2.4.1: its p2p module and NCCL plugins link rdma-core's
// libibverbs.so.1, which a machine with RDMA adapters has; libnccl-net-efa.so also needs its
// vendored libefa (lacking only libibverbs) and libglog, which loads once the package loads it.
TEST(LoadChecks, RdmaCoreIsASystemLibraryAndASiblingThatLoadsIsNoObstacle) {
  const auto report = nlohmann::json::parse(R"({"torch": "2.4.1", "torch_cuda": "12.1", "libraries": [
    {"path": "/s/uccl.libs/libglog-c040a6f3.so.0.4.0", "loaded": true},
    {"path": "/s/uccl.libs/libefa-21e848e1.so.1.3.52.0", "loaded": false, "error_kind": "missing_library",
     "missing_libraries": ["libibverbs.so.1"]},
    {"path": "/s/uccl/lib/libnccl-net-efa.so", "loaded": false, "error_kind": "missing_library",
     "missing_libraries": ["libibverbs.so.1", "libefa-21e848e1.so.1.3.52.0", "libglog-c040a6f3.so.0.4.0"]}]})");
  const auto out = load_checks(report, "r");
  ASSERT_EQ(out.size(), 3u);
  for (std::size_t i = 1; i < out.size(); ++i) {
    EXPECT_EQ(out[i].status, Status::skip) << out[i].message;
    ASSERT_TRUE(out[i].diagnosis);
    EXPECT_NE(out[i].diagnosis->fix.find("apt install libibverbs1"), std::string::npos) << out[i].diagnosis->fix;
  }
  EXPECT_NE(out[1].message.find("rdma-core's libraries (libibverbs.so.1)"), std::string::npos) << out[1].message;
}

}  // namespace opmatrix
