// How a package's ops reach its users (checks/load/extension_reach.cpp, load_judge.cpp): ops
// registered only once an extension module is imported, and a build that makes no compiled
// extension in this runtime by design.
#include <gtest/gtest.h>

#include "checks/load/load_judge.h"

namespace opmatrix {

namespace {

nlohmann::json lazy_report() {
  return nlohmann::json::parse(R"({"torch": "2.6.0", "namespace": "reachops",
    "libraries": [{"path": "/build/site/reachops/_C.cpython-313-x86_64-linux-gnu.so", "loaded": true}],
    "import": {"module": "reachops", "ok": true, "functions": ["double_it"]},
    "reached": {"modules": ["reachops._C"], "ops": {"double_it": "reachops._C", "late": "dlopen _late.so"}},
    "ops": {"double_it": {"CPU": true, "CUDA": false, "Meta": true, "Autograd": false},
            "late": {"CPU": true, "CUDA": false, "Meta": true, "Autograd": false},
            "eager": {"CPU": true, "CUDA": false, "Meta": true, "Autograd": false}}})");
}

nlohmann::json gated_build() {
  return nlohmann::json::parse(R"({"ok": true, "wheel": "/build/wheel/cudagated-0.1.0-py3-none-any.whl", "libraries": [],
    "no_extension": {"where": "setup.py:8", "line": "if torch.cuda.is_available() and CUDA_HOME is not None:",
                     "words": "Compiling without CUDA"}})");
}

const CheckResult* registration_of(const std::vector<CheckResult>& checks, const std::string& op) {
  for (const auto& c : checks)
    if (c.check == "registration" && c.op == op) return &c;
  return nullptr;
}

}  // namespace

TEST(ExtensionReach, OpsRegisteredOnceTheExtensionModuleIsImportedSaySo) {
  const auto checks = namespace_checks(lazy_report(), "reachops", false, "r");
  const CheckResult* lazy = registration_of(checks, "double_it");
  ASSERT_TRUE(lazy);
  EXPECT_EQ(lazy->status, Status::pass);
  EXPECT_NE(lazy->message.find("(registered once reachops._C is imported; `import reachops` alone does not load it)"),
            std::string::npos) << lazy->message;
  const CheckResult* late = registration_of(checks, "late");
  ASSERT_TRUE(late);
  EXPECT_NE(late->message.find("registered only once _late.so is loaded with torch.ops.load_library"), std::string::npos)
      << late->message;
  // An op the import itself registered gains no note.
  const CheckResult* eager = registration_of(checks, "eager");
  ASSERT_TRUE(eager);
  EXPECT_EQ(eager->message.find("registered once"), std::string::npos) << eager->message;
  EXPECT_NE(reached_note(lazy_report()).find("its ops register once reachops._C is imported"), std::string::npos);
  EXPECT_EQ(reached_note(nlohmann::json::object()), "");
}

TEST(ExtensionReach, NoExtensionByDesignIsASkipNamingSetupPysLine) {
  const auto report = nlohmann::json::parse(R"({"torch": "2.6.0", "libraries": [], "error": null,
    "import": {"module": "cudagated", "ok": true}})");
  ASSERT_TRUE(no_library_built(report));
  const CheckResult c = no_library_result(gated_build(), /*cuda_cell=*/false, "r");
  EXPECT_EQ(c.status, Status::skip);
  EXPECT_EQ(c.subtest, "library");
  ASSERT_TRUE(c.diagnosis);
  EXPECT_EQ(c.diagnosis->kind, "no_extension_by_design");
  EXPECT_NE(c.message.find("no compiled extension in this runtime, by design: setup.py:8 `if "
                           "torch.cuda.is_available() and CUDA_HOME is not None:` builds it only there (it "
                           "says 'Compiling without CUDA')"),
            std::string::npos) << c.message;
  const auto ops = no_extension_checks({"scale_boxes"}, "cudagated", no_extension_reason(gated_build()));
  ASSERT_EQ(ops.size(), 1u);
  EXPECT_EQ(ops[0].status, Status::skip);
  EXPECT_EQ(ops[0].message.rfind("cudagated::scale_boxes not checked here: no compiled extension", 0), 0u);
}

// The same setup.py in a runtime that promises CUDA: the build saw no GPU (none has one) and made
// no extension, so the CUDA promise is broken — never "by design".
TEST(ExtensionReach, NoExtensionInACudaRuntimeIsTheCpuOnlyBuild) {
  const CheckResult c = no_library_result(gated_build(), /*cuda_cell=*/true, "r");
  EXPECT_EQ(c.status, Status::fail);
  ASSERT_TRUE(c.diagnosis);
  EXPECT_EQ(c.diagnosis->kind, "built_cpu_only");
  EXPECT_NE(c.message.find("CUDA promised, built without its extension: setup.py:8"), std::string::npos) << c.message;
}

// basicsr 1.4.2 builds its ops only where BASICSR_EXT=True: an opt-in a plain install leaves off,
// by design in a CUDA runtime too (not "CUDA promised, built without its extension").
TEST(ExtensionReach, AnOptInSwitchLeftOffIsByDesignInACudaRuntimeToo) {
  const auto build = nlohmann::json::parse(R"({"ok": true, "libraries": [], "no_extension": {"where": "setup.py:79",
    "line": "if cuda_ext == 'True':", "words": null, "switch": "BASICSR_EXT",
    "how": "builds it only where the environment variable BASICSR_EXT asks for it, which a plain `pip install` leaves unset"}})");
  for (const bool cuda_cell : {false, true}) {
    const CheckResult c = no_library_result(build, cuda_cell, "r");
    EXPECT_EQ(c.status, Status::skip) << cuda_cell;
    ASSERT_TRUE(c.diagnosis);
    EXPECT_EQ(c.diagnosis->kind, "no_extension_by_design");
    EXPECT_EQ(c.message.rfind("no compiled extension in this runtime, by design: setup.py:79 `if cuda_ext == 'True':` "
                              "builds it only where the environment variable BASICSR_EXT asks for it", 0), 0u)
        << c.message;
  }
}

TEST(ExtensionReach, NoLibraryWithoutAReasonStaysARed) {
  const CheckResult c = no_library_result(nlohmann::json::parse(R"({"ok": true, "libraries": [], "no_extension": null})"),
                                          false, "r");
  EXPECT_EQ(c.status, Status::fail);
  ASSERT_TRUE(c.diagnosis);
  EXPECT_EQ(c.diagnosis->kind, "no_library_built");
  EXPECT_EQ(no_extension_reason(nlohmann::json::object()), "");
  // sam2 1.1.0: an `except` that empties its extensions when their build fails.
  const auto dropped = nlohmann::json::parse(R"({"no_extension": {"where": "setup.py:104", "line": "except Exception as e:",
    "how": "drops it where its build fails", "words": "Failed to build the SAM 2 CUDA extension due to the error above. "}})");
  EXPECT_EQ(no_extension_reason(dropped),
            "no compiled extension in this runtime, by design: setup.py:104 `except Exception as e:` drops it where its "
            "build fails (it says 'Failed to build the SAM 2 CUDA extension due to the error above. ')");
  EXPECT_FALSE(no_library_built(nlohmann::json::parse(R"({"libraries": [], "error": "no library to load"})")));
}

// tensordict 0.15.3's wheel is py3-none-any: a release that ships no compiled library by design
// is nothing to load (its import is judged), never "the build made no compiled library"; a wheel
// with a CPython ABI tag and no library stays red.
TEST(ExtensionReach, APurePythonWheelHasNoLibraryToLoadByDesign) {
  const auto pure = nlohmann::json::parse(R"({"ok": true, "libraries": [], "tags": ["py3-none-any"],
    "wheel": "/build/wheel/tensordict-0.15.3-py3-none-any.whl"})");
  CheckResult c = no_library_result(pure, false, "r");
  EXPECT_EQ(c.status, Status::skip);
  EXPECT_EQ(c.message, "a pure-Python release: its wheel tensordict-0.15.3-py3-none-any.whl (tags py3-none-any) holds "
                       "no compiled library; its import is what runs here");
  const auto compiled = nlohmann::json::parse(R"({"ok": true, "libraries": [], "tags": ["cp313-cp313-manylinux_2_28_x86_64"],
    "wheel": "/build/wheel/x-1-cp313-cp313-manylinux_2_28_x86_64.whl"})");
  c = no_library_result(compiled, false, "r");
  EXPECT_EQ(c.status, Status::fail);
}

// torchdata 0.7.1 in Python 3.13: its compiled wheels are for cp38-cp311, so pip takes its
// py3-none-any wheel, which lacks the extension: a limit naming those wheels, never "works".
TEST(ExtensionReach, APureWheelTakenWhereTheCompiledOnesDoNotFitIsALimit) {
  const auto fallback = nlohmann::json::parse(R"({"ok": true, "libraries": [], "tags": ["py3-none-any"],
    "wheel": "/build/wheel/torchdata-0.7.1-py3-none-any.whl",
    "compiled_wheels": "cp38/cp39/cp310/cp311 wheels for macosx arm64, manylinux x86_64, win amd64"})");
  const CheckResult c = no_library_result(fallback, false, "r");
  EXPECT_EQ(c.status, Status::skip);
  ASSERT_TRUE(c.diagnosis);
  EXPECT_EQ(c.diagnosis->kind, "compiled_wheel_elsewhere");
  EXPECT_EQ(c.message, "this runtime gets the release's pure-Python wheel torchdata-0.7.1-py3-none-any.whl (tags "
                       "py3-none-any), without the compiled extension its cp38/cp39/cp310/cp311 wheels for macosx "
                       "arm64, manylinux x86_64, win amd64 hold: pip takes it because none of those fits this Python "
                       "or platform; its import is what runs here, and what the extension brings is not here");
}

// gsplat 1.5.3's py3-none-any wheel ships its CUDA sources and builds them with
// torch.utils.cpp_extension at first use: a limit (its ops are not measured by the import), with
// what it ships and which module builds it.
TEST(ExtensionReach, AWheelThatCompilesItsCodeAtFirstUseSaysSo) {
  const auto jit = nlohmann::json::parse(R"({"ok": true, "libraries": [], "tags": ["py3-none-any"],
    "wheel": "/build/wheel/gsplat-1.5.3-py3-none-any.whl",
    "jit": {"sources": {".cpp": 216, ".cu": 20, ".cuh": 3}, "builders": ["gsplat/cuda/_backend.py"]}})");
  const CheckResult c = no_library_result(jit, false, "r");
  EXPECT_EQ(c.status, Status::skip);
  ASSERT_TRUE(c.diagnosis);
  EXPECT_EQ(c.diagnosis->kind, "compiled_at_first_use");
  EXPECT_EQ(c.message, "a release that compiles its C++/CUDA code at first use: its wheel gsplat-1.5.3-py3-none-any.whl "
                       "(tags py3-none-any) ships 216 .cpp, 20 .cu, 3 .cuh source files, which gsplat/cuda/_backend.py "
                       "compiles with torch.utils.cpp_extension when first used (needs a C++ compiler there); this "
                       "pair runs its import, not that build, so its ops are not measured here");
  // Sources with no module that builds them (or the reverse) are not that.
  auto sources_only = jit;
  sources_only["jit"]["builders"] = nlohmann::json::array();
  EXPECT_FALSE(no_library_result(sources_only, false, "r").diagnosis);
}

// torchac 0.9.3's py3-none-any wheel ships one .cpp, which `import torchac` compiles with
// torch.utils.cpp_extension.load() and loads: the import measured the build in this torch, a pass
// naming what was built (was the limit "its ops are not measured here"); its metadata requires no
// ninja, which the import runs, and the result says so.
TEST(ExtensionReach, AnImportThatCompiledItsCodeIsAPassNamingWhatItBuilt) {
  auto build = nlohmann::json::parse(R"({"ok": true, "libraries": [], "tags": ["py3-none-any"], "requires": [],
    "wheel": "/build/wheel/torchac-0.9.3-py3-none-any.whl",
    "jit": {"sources": {".cpp": 1}, "builders": ["torchac/torchac.py"]}})");
  const auto import = nlohmann::json::parse(R"({"module": "torchac", "ok": true, "compiled_at_import":
    [{"path": "/root/.cache/torch_extensions/py313_cpu/torchac_backend/torchac_backend.so", "name": "torchac_backend.so"}]})");
  const CheckResult c = compiled_at_import_result(build, import);
  EXPECT_EQ(c.status, Status::pass);
  EXPECT_EQ(c.check, "load");
  EXPECT_EQ(c.subtest, "library");
  EXPECT_EQ(c.message, "its import compiled its C++ code against this torch with torch.utils.cpp_extension and loaded "
                       "it: torchac_backend.so, from the wheel's 1 .cpp; the import needs a C++ compiler and ninja "
                       "where it runs (its metadata does not require ninja: `pip install ninja`)");
  // A package that requires ninja (torchdrug 0.2.1: `Requires-Dist: ninja`) is not told to add it.
  build["requires"] = {"torch (>=1.8.0)", "ninja", "jinja2"};
  EXPECT_EQ(compiled_at_import_result(build, import).message.find("pip install ninja"), std::string::npos);
  build["requires"] = {"ninja-build-helper"};
  EXPECT_NE(compiled_at_import_result(build, import).message.find("pip install ninja"), std::string::npos);
  // One source file is one file.
  build["requires"] = nlohmann::json::array();
  EXPECT_NE(no_library_result(build, false, "r").message.find("ships 1 .cpp source file, which"), std::string::npos);
}

// cpm-kernels 1.0.11's py3-none-any wheel holds no shared library but 11 .fatbin files, which it
// loads through the CUDA driver when its functions run: not "a pure-Python release", a limit.
TEST(ExtensionReach, AWheelWhoseCompiledCodeIsDeviceCodeFilesSaysSo) {
  const auto build = nlohmann::json::parse(R"({"ok": true, "libraries": [], "tags": ["py3-none-any"],
    "wheel": "/build/wheel/cpm_kernels-1.0.11-py3-none-any.whl",
    "device_code": {"files": {".fatbin": 11}, "paths": ["cpm_kernels/kernels/cuda/arith.fatbin",
      "cpm_kernels/kernels/cuda/embedding.fatbin", "cpm_kernels/kernels/cuda/gelu.fatbin"]}})");
  const CheckResult c = no_library_result(build, false, "r");
  EXPECT_EQ(c.status, Status::skip);
  ASSERT_TRUE(c.diagnosis);
  EXPECT_EQ(c.diagnosis->kind, "device_code_at_use");
  EXPECT_EQ(c.message, "a release whose compiled code is CUDA device code: its wheel cpm_kernels-1.0.11-py3-none-any.whl "
                       "(tags py3-none-any) ships its compiled code as CUDA device code, 11 .fatbin files "
                       "(cpm_kernels/kernels/cuda/arith.fatbin, cpm_kernels/kernels/cuda/embedding.fatbin, "
                       "cpm_kernels/kernels/cuda/gelu.fatbin, …), which it loads through the CUDA driver when its "
                       "functions run (needs a GPU there); this pair runs its import, not that code, so its kernels "
                       "are not measured here");
  auto none = build;
  none.erase("device_code");
  EXPECT_EQ(no_library_result(none, false, "r").message.rfind("a pure-Python release", 0), 0u);
}

// pnnx 20261020's wheel holds no shared library but an 88 MB ELF program (pnnx/pnnx, libtorch
// linked in) that its functions run as a subprocess: not "a pure-Python release", a limit.
TEST(ExtensionReach, AWheelWhoseCompiledCodeIsAProgramSaysSo) {
  auto build = nlohmann::json::parse(R"({"ok": true, "libraries": [], "tags": ["py3-none-manylinux2014_x86_64"],
    "wheel": "/build/wheel/pnnx-20261020-py3-none-manylinux2014_x86_64.whl",
    "programs": {"count": 1, "paths": ["pnnx/pnnx"], "torch_libraries": [], "missing": []}})");
  CheckResult c = no_library_result(build, false, "r");
  EXPECT_EQ(c.status, Status::skip);
  ASSERT_TRUE(c.diagnosis);
  EXPECT_EQ(c.diagnosis->kind, "program_at_use");
  EXPECT_EQ(c.message, "a release whose compiled code is a program, not a library: its wheel "
                       "pnnx-20261020-py3-none-manylinux2014_x86_64.whl (tags py3-none-manylinux2014_x86_64) ships 1 "
                       "program (pnnx/pnnx), linked to none of torch's libraries (the torch it uses is built into it), "
                       "which its functions run as a subprocess; this pair runs its import, not that program, so what "
                       "the program does is not measured here");
  // Linked to torch's libraries, one of them missing here: both named.
  build["programs"] = nlohmann::json::parse(R"({"count": 4, "paths": ["t/a", "t/b", "t/c"],
    "torch_libraries": ["libc10.so", "libtorch_cpu.so"], "missing": ["libtorch_cuda.so"]})");
  c = no_library_result(build, false, "r");
  EXPECT_NE(c.message.find("ships 4 programs (t/a, t/b, t/c, …), linked to torch's libc10.so, libtorch_cpu.so, and "
                           "needs libtorch_cuda.so, which this runtime lacks"),
            std::string::npos)
      << c.message;
  build.erase("programs");
  EXPECT_EQ(no_library_result(build, false, "r").message.rfind("a pure-Python release", 0), 0u);
}

// A package's libraries as its users load them: the core after its sibling, an optional
// backend whose system library is missing named once, as a limit.
TEST(ExtensionReach, APackagesLibrariesAsItsUsersLoadThem) {
  const auto report = nlohmann::json::parse(R"({"torch": "2.9.1", "import": {"module": "audiolib", "ok": true},
    "libraries": [
      {"path": "/build/site/audiolib/lib/_core.so", "loaded": true, "loaded_after": ["/build/site/audiolib/lib/libcore.so"]},
      {"path": "/build/site/audiolib/lib/_ffmpeg4.so", "loaded": false, "error_kind": "missing_library",
       "missing_libraries": ["libavutil.so.56"], "optional": true},
      {"path": "/build/site/audiolib/lib/_ffmpeg5.so", "loaded": false, "error_kind": "missing_library",
       "missing_libraries": ["libavutil.so.57"], "optional": true}]})");
  const auto checks = load_checks(report, "r");
  ASSERT_EQ(checks.size(), 2u);
  EXPECT_EQ(checks[0].status, Status::pass);
  EXPECT_NE(checks[0].message.find("_core.so loads (dlopen RTLD_NOW) in torch 2.9.1, after its sibling libcore.so "
                                   "(the package loads it first)"), std::string::npos) << checks[0].message;
  EXPECT_EQ(checks[1].status, Status::skip);
  ASSERT_TRUE(checks[1].diagnosis);
  EXPECT_EQ(checks[1].diagnosis->kind, "optional_backend_unavailable");
  EXPECT_EQ(checks[1].message, "its optional backends _ffmpeg4.so, _ffmpeg5.so need libavutil.so.56, libavutil.so.57: "
                               "not installed here (system libraries); optional — import audiolib works without them");
  // The NVIDIA driver's libraries are no system package: a machine with a GPU has them.
  auto with_driver = report;
  with_driver["libraries"][1]["missing_libraries"] = {"libavutil.so.56", "libcuda.so.1"};
  const auto driver_checks = load_checks(with_driver, "r");
  ASSERT_EQ(driver_checks.size(), 2u);
  EXPECT_EQ(driver_checks[1].message,
            "its optional backends _ffmpeg4.so, _ffmpeg5.so need libavutil.so.56, libavutil.so.57: not installed here "
            "(system libraries); and the NVIDIA driver's libcuda.so.1, which only a machine with a GPU and its driver "
            "has; optional — import audiolib works without them");
  ASSERT_TRUE(driver_checks[1].diagnosis);
  EXPECT_NE(driver_checks[1].diagnosis->fix.find("a machine with a GPU and its driver"), std::string::npos);
  // pylibwholegraph-cu12 26.10.0: its binding needs libwholegraph.so, which its requirement
  // installs and which needs the driver itself: not a system library to install.
  auto through = report;
  through["libraries"].erase(2);
  through["libraries"][1]["missing_libraries"] = {"libwholegraph.so", "libcuda.so.1"};
  through["libraries"][1]["missing_through"] = {
      {"libwholegraph.so", {{"path", "/build/deps/libwholegraph/lib64/libwholegraph.so"},
                            {"missing", {"libcuda.so.1", "libnvidia-ml.so.1"}}}}};
  const auto through_checks = load_checks(through, "r");
  ASSERT_EQ(through_checks.size(), 2u);
  EXPECT_EQ(through_checks[1].message,
            "its optional backend _ffmpeg4.so needs libwholegraph.so (installed, its package's or a requirement's, "
            "which does not load for what follows); and the NVIDIA driver's libcuda.so.1, libnvidia-ml.so.1, which "
            "only a machine with a GPU and its driver has; optional — import audiolib works without it");
}

// xformers 0.0.28.post3 (built for torch 2.5.1 + CUDA 12.4) in a CUDA 13.2 torch: its _C.so needs
// libcudart.so.12. The CUDA it was built for, named as such; never an optional backend.
TEST(ExtensionReach, ALibraryBuiltForAnotherCudaNamesTheCudaItWasBuiltFor) {
  const auto report = nlohmann::json::parse(R"({"torch": "2.15.0+cu132", "torch_cuda": "13.2",
    "libraries": [{"path": "/build/site/xformers/_C.so", "loaded": false, "error_kind": "missing_library",
                   "missing_libraries": ["libcudart.so.12"], "optional": false}]})");
  const auto checks = load_checks(report, "r");
  ASSERT_EQ(checks.size(), 1u);
  EXPECT_EQ(checks[0].status, Status::fail);
  ASSERT_TRUE(checks[0].diagnosis);
  EXPECT_EQ(checks[0].diagnosis->kind, "cuda_runtime_mismatch");
  EXPECT_EQ(checks[0].message, "_C.so: built for CUDA 12: needs libcudart.so.12, and this runtime's torch has CUDA 13.2");
  EXPECT_EQ(checks[0].diagnosis->fix, "install the library's build for CUDA 13 (or use it with a torch built for CUDA 12)");
}

// torchaudio 2.5.1 in torch 2.15: _torchaudio.so "needs" libtorchaudio.so, which is there and does
// not load; never "not in this runtime".
TEST(ExtensionReach, ASiblingThatDoesNotLoadIsNotSaidToBeAbsent) {
  const auto report = nlohmann::json::parse(R"json({"torch": "2.15.0+cu132", "torch_cuda": "13.2",
    "libraries": [{"path": "/s/torchaudio/lib/_torchaudio.so", "loaded": false, "error_kind": "missing_library",
                   "missing_libraries": ["libtorchaudio.so", "libsox.so"]},
                  {"path": "/s/torchaudio/lib/libtorchaudio.so", "loaded": false, "error_kind": "undefined_symbol",
                   "undefined": [{"symbol": "x", "demangled": "c10::x()"}]}]})json");
  const auto checks = load_checks(report, "r");
  ASSERT_EQ(checks.size(), 2u);
  // The sibling's own red first (the cause), then the library that needs it.
  EXPECT_EQ(checks[0].message, "libtorchaudio.so: undefined symbol: c10::x()");
  EXPECT_EQ(checks[1].message, "_torchaudio.so: needs libsox.so (not in this runtime); libtorchaudio.so (its "
                               "package's own, which does not load here)");
}

}  // namespace opmatrix
