// The judge of the load step: turns what load_library.py reports into check results: `load`,
// and `registration`/`meta` by namespace. Pure functions of JSON, so the rules are unit-tested
// without a container.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "matrix/model.h"

#include "results/cell_result.h"

namespace opmatrix {

// One `load` check per library: loads with RTLD_NOW, or the undefined symbols (demangled)
// / missing libraries that stop it. `repro` is the command that shows it again.
std::vector<CheckResult> load_checks(const nlohmann::json& report, const std::string& repro);

// Whether the build made no compiled library and the project's module is what there is to load.
bool no_library_built(const nlohmann::json& report);

// The one `load` result where no_library_built(): by design in a runtime without CUDA where the
// project's setup.py says why (no_extension_reason: a limit, never an error); in a CUDA runtime
// the same line is the CUDA promise broken (`built_cpu_only`: it builds only with a visible GPU,
// which build machines lack); a red where setup.py does not say.
CheckResult no_library_result(const nlohmann::json& build, bool cuda_cell, const std::string& repro);

// The `load` result where the build made no library and the package's import compiled its C++
// with torch.utils.cpp_extension.load() and loaded it (load_library.py's "compiled_at_import":
// torchac 0.9.3): a pass, naming what was built, and the compiler and ninja the import needs, which
// a package whose metadata does not require ninja leaves its users to install.
CheckResult compiled_at_import_result(const nlohmann::json& build, const nlohmann::json& import);

// "no compiled extension in this runtime, by design: setup.py:42 `if torch.cuda.is_available():`
// builds it only there (it says 'Compiling without CUDA')" from build_wheel.py's report, or ""
// where the build made a library or did not say why it made none.
std::string no_extension_reason(const nlohmann::json& build);

// Where the build made no compiled library: each op of the namespace is not checked here, with
// the reason (never "not registered at all": there is nothing to register it).
std::vector<CheckResult> no_extension_checks(const std::vector<std::string>& ops, const std::string& ns,
                                             const std::string& why);

// The words a registration or import result gains where the ops appeared only once an extension
// module was imported (load_library.py's "reached"): " (registered once `pkg._C` is imported;
// `import pkg` alone does not load it)"; "" where the import alone brought them.
std::string reached_note(const nlohmann::json& report, const std::string& op = "");

// `registration` (CPU, plus CUDA when `expect_cuda`) and `meta` per op of the namespace. With
// `promises`, an op is expected to have only the backends its library promises for it (a
// CUDA-only op has no CPU kernel, a CPU variant no CUDA kernel, by design: no red, said so).
// Without `gpu_visible`, an op whose kernels were registered from Python may lack its CUDA kernel
// only for want of a GPU (the package registers it where one is): said so, not a red.
std::vector<CheckResult> namespace_checks(const nlohmann::json& report, const std::string& ns, bool expect_cuda,
                                          const std::string& repro, const Promises* promises = nullptr,
                                          bool gpu_visible = true);

// The `load` check of importing the project's Python module as users do (`import:`): what it
// exposes, or its error diagnosed like a failed step's log (a torch too old for it, …). An import
// that succeeds while the package declines its own compiled extension (load_library.py's
// "declined": a warning and a Python fallback) fails: declined_extension, quoting its words.
// Without `gpu_visible`, an import that stops in CUDA's or torch's own words for a machine without a
// GPU or driver (kNoGpuWords: a package initialising CUDA as it is imported), or in the package's
// own words that it found no GPU, device or accelerator (flag-gems), is not checked here.
CheckResult import_check(const nlohmann::json& import, const std::string& repro, bool gpu_visible = true);
// An import that compiles its CUDA code (torch.utils.cpp_extension) for the visible GPUs, on a
// machine with none: a skip that leaves nothing of the library to judge here. Told by torch's
// own failure on the empty arch list, or by the package's own words asking for
// TORCH_CUDA_ARCH_LIST (exllamav3: "No CUDA device is visible to determine the architectures").
inline constexpr const char* kJitNeedsVisibleGpu = "jit_needs_visible_gpu";
// A library that dies of SIGILL while loading, whose code (or that of a library of its package it
// needs) uses instruction set extensions this machine's CPU lacks (load_library.py's "cpu_lacks":
// AVX-512, AMX): its users' CPUs have them; nothing of it can be judged on this one.
inline constexpr const char* kCpuLacksInstructions = "cpu_lacks_instructions";
// A library that does not load in this torch where the package's import imports the same names
// from Python instead (load_library.py's "python_fallback": torchopt's `except ImportError:` around
// `from torchopt._C import adam_op`): a limit, not a break. Another check's red about the same
// library (its std::string ABI) is that limit's cause: library_done_without() says so.
inline constexpr const char* kPythonFallback = "python_fallback";
// Another framework's library (TensorFlow's op library) that the package ships beside its torch
// libraries: not checked here, and no part of the torch side's verdict.
inline constexpr const char* kAnotherFrameworksLibrary = "another_frameworks_library";
// Every compiled library of the package is another device's or framework's (vllm-xpu-kernels:
// torch's XPU build): nothing of it runs in this runtime, the pair is not judged.
inline constexpr const char* kForAnotherRuntime = "for_another_runtime";
// A plugin of another program (LAMMPS's, say) that the package ships beside its torch libraries.
inline constexpr const char* kHostPlugin = "host_plugin";
// An import naming a module the package does not hold (load_library.py's "package_modules": the
// modules its RECORD lists): the run's input is wrong, not the package. An infrastructure kind
// of the load check: the import is not checked, never red.
inline constexpr const char* kImportNotInPackage = "import_not_in_package";
// A package on PyPI whose import says it is a placeholder and where the real one is to be had
// (kaolin 0.1: "This is the kaolin placeholder wheel … Please follow https://… for installation"):
// the run checked the wrong distribution, an infrastructure kind of the load check, never red.
inline constexpr const char* kPlaceholderPackage = "placeholder_package";
// An import that compiles CUDA code (torch.utils.cpp_extension) in a runtime without a CUDA
// toolkit (torch's "CUDA_HOME environment variable is not set"): a CUDA-only library beside a
// torch without CUDA, as an sdist's CUDA-only build is (needs_cuda_to_build): nothing to judge.
inline constexpr const char* kJitNeedsCuda = "jit_needs_cuda";
// An import that needs AMD's ROCm (hipconfig, ROCM_HOME) in a runtime without it: a library for AMD
// GPUs beside a CPU or CUDA torch, nothing to judge.
inline constexpr const char* kNeedsRocm = "needs_rocm";
// An import that reads a device folder of the kernel this machine lacks (/sys/class/infiniband:
// RDMA adapters): hardware its users have, nothing to judge here.
inline constexpr const char* kNeedsDevice = "needs_device";
// A library the package builds per torch version with no build for this one, where the import
// worked without mapping any of its builds (load_library.py's "unused_by_import": torch-c-dlpack-ext
// 0.1.5 beside torch 2.14, which has natively what its builds add): a limit, not a break; what
// else of the package would load one is not known here.
inline constexpr const char* kNoBuildUnusedByImport = "no_build_unused_by_import";

// An empty namespace where the package's libraries were not checked here (they need the GPU
// driver or a system library this runtime lacks: see load): its registration is not checked
// either, one cause said once. Any other result is returned as it is.
CheckResult unregistered_for_want_of_load(CheckResult registration, const std::vector<CheckResult>& earlier);

// One cause, one red: a package that declines its extension because a library of it does not
// load here (its undefined symbols are the cause, already red) keeps its import a pass, the
// decline said in its message; an import that fails for a shared library where a library of the
// package needs the GPU driver this machine lacks is not checked here either.
CheckResult explained_by_library_failure(CheckResult import, const std::vector<CheckResult>& earlier);

// A red of a per-library check (cxx11_abi) about a library the load check found the package
// does without here (kPythonFallback): the load's limit, its cause said there; a skip naming it.
// Any other result is returned as it is.
CheckResult library_done_without(CheckResult c, const std::vector<CheckResult>& earlier);

// A project with no dispatcher namespace (a pybind11-only extension): one `registration` skip
// saying so, with the functions its module exposes, instead of silence.
CheckResult not_a_dispatcher_library(const nlohmann::json& report, const std::string& repro);

// A short line for a failed load: "undefined symbol: at::foo(...) (+3 more)". `siblings`: the
// file names of the package's libraries, which a library "needs" when they do not load.
std::string load_failure_summary(const nlohmann::json& library, const std::vector<std::string>& siblings = {},
                                 const std::vector<std::string>& loaded_siblings = {});

}  // namespace opmatrix
