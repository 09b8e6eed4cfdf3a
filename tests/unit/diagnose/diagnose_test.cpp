#include <ostream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "diagnose/diagnose.h"
#include "engine/process.h"

namespace opmatrix {

namespace {
Diagnosis step(const std::string& log, const std::string& name = "build") {
  StepFailure f;
  f.step = name;
  f.log = log;
  f.exit_code = 1;
  f.repro = "cmake --build /build";
  return diagnose_step(f);
}

// What one field of a diagnosis must hold: the text in it, exactly that text, or not the text.
enum class Holds { in, is, not_in };
struct Part {
  const std::string Diagnosis::*field;
  Holds how;
  const char* text;
};
constexpr auto kSummary = &Diagnosis::summary;
constexpr auto kFix = &Diagnosis::fix;
constexpr auto kEvidence = &Diagnosis::evidence;
constexpr auto kRepro = &Diagnosis::repro;

void expect_part(const Diagnosis& d, const Part& p) {
  const std::string& got = d.*p.field;
  if (p.how == Holds::is)
    EXPECT_EQ(got, p.text);
  else if (p.how == Holds::in)
    EXPECT_NE(got.find(p.text), std::string::npos) << got;
  else
    EXPECT_EQ(got.find(p.text), std::string::npos) << got;
}

void expect_diagnosis(const Diagnosis& d, const std::string& kind, const std::vector<Part>& parts) {
  EXPECT_EQ(d.kind, kind);
  for (const Part& p : parts) expect_part(d, p);
}

// One failed step's log, and the kind and words of its diagnosis; `name` is the case's test name.
struct OneLog {
  const char* name;
  const char* step;
  const char* kind;
  std::vector<Part> parts;
  const char* log;
};
void PrintTo(const OneLog& c, std::ostream* os) { *os << c.name; }

const std::vector<OneLog> kOneLogs = {
    // pypi-torch2.5.1-cu11.8's image on a machine that reaches PyPI alone (2026-11-29).
    {"AnIndexTheImageBuildCannotReach", "image", "index_unreachable",
     {{kSummary, Holds::in, "could not reach the package index https://download.pytorch.org/whl/cu118"},
      {kFix, Holds::in, "its GitHub job"}},
     "Looking in indexes: https://download.pytorch.org/whl/cu118\nWARNING: Retrying (Retry(total=4, connect=None, "
     "read=None, redirect=None, status=None)) after connection broken by 'NewConnectionError('<pip._vendor.urllib3."
     "connection.HTTPSConnection object at 0x7f2a8af3f750>: Failed to establish a new connection: [Errno 101] "
     "Network is unreachable')'\nERROR: No matching distribution found for torch==2.5.1\n"},
    {"DiskFullIsNotACompileError", "build", "disk_full", {},
     "/src/cases/device/nms_device.cpp:60:1: fatal error: error writing to /tmp/cc.s: No space left on device\n"},
    {"UnsupportedArch", "build", "unsupported_arch", {{kSummary, Holds::in, "compute_100"}},
     "nvcc fatal   : Unsupported gpu architecture 'compute_100'\n"},
    // Seen in trixie's CUDA cell: g++ 14 objects linked against nvcc 12.4's g++-13 libstdc++.
    {"MixedCompilersAtLinkTime", "build", "libstdcxx_mismatch", {{kFix, Holds::in, "CMAKE_CXX_COMPILER=g++-13"}},
     "/usr/bin/ld: x.o: in function `f':\nx.cpp:(.text+0x3c9): undefined reference to `__cxa_call_terminate'\n"},
    {"CxxStandardTooOld", "build", "cxx_standard",
     {{kSummary, Holds::in, "C++20"}, {kRepro, Holds::is, "cmake --build /build"}, {kFix, Holds::not_in, "the build forces"}},
     "In file included from /usr/include/c10/macros/Macros.h:1:\n"
     "/usr/include/c10/util/C++17.h:24:2: error: #error \"You're trying to build PyTorch with a too old "
     "version of GCC. We need GCC 9 or later.\"\n#error C++20 or later compatible compiler is required to use PyTorch.\n"},
    {"CudaAskedOfACpuTorch", "configure", "no_cuda_torch", {},
     "CMake Error at cmake/OpmatrixTorch.cmake:40 (message):\n  OPMATRIX_WITH_CUDA=ON, but the torch at "
     "/usr/lib/x86_64-linux-gnu/cmake/Torch was built without CUDA\n"},
    // torch 2.5.1 told TORCH_CUDA_ARCH_LIST=...;10.0 beside CUDA 13's nvcc (the first run of
    // pypi-torch2.5.1-cu12.4-nvcc13.0, 2026-11-29).
    {"TorchCMakeThatCannotParseATwoDigitArch", "configure", "torch_cmake_unknown_arch",
     {{kSummary, Holds::in, "cannot parse the CUDA arch 10.0"}, {kFix, Holds::in, "torch 2.7 or newer"}},
     "CMake Error at /opt/venv/lib/python3.11/site-packages/torch/share/cmake/Caffe2/Modules_CUDA_fix/upstream/"
     "FindCUDA/select_compute_arch.cmake:227 (message):\n  Unknown CUDA Architecture Name 10.0 in "
     "CUDA_SELECT_NVCC_ARCH_FLAGS\n"},
    // moolib 0.0.9b0 in trixie's CUDA cell: its vendored pybind11 2.9's CMake, in pip's indented output.
    {"CMakeErrorIndentedByPip", "build", "configure_error",
     {{kSummary, Holds::is, "CMake configuration failed at third_party/pybind11/tools/pybind11NewTools.cmake:205: "
                            "Unknown CMake command \"python_add_library\"."}},
     "      -- pybind11 v2.9.0 dev1\n      CMake Error at third_party/pybind11/tools/pybind11NewTools.cmake:205 "
     "(python_add_library):\n        Unknown CMake command \"python_add_library\".\n      Call Stack (most recent "
     "call first):\n        CMakeLists.txt:51 (pybind11_add_module)\n      \n      \n      -- Configuring "
     "incomplete, errors occurred!\n"},
    // mpi4torch 0.1.3's setup.py compiles with MPI's mpicc, through the image's ccache.
    {"AProgramTheBuildRunsIsNotThere", "build", "missing_program",
     {{kSummary, Holds::is, "the build runs mpicc, a program this image does not have"},
      {kFix, Holds::in, "apt-file search bin/mpicc"}},
     "      ccache mpicc -Wsign-compare -DNDEBUG -g -fwrapv -O2 -c csrc/extension.cpp\n      ccache: error: Could not "
     "find compiler \"mpicc\" in PATH\n      error: command '/usr/bin/ccache' failed with exit code 1\n"},
    {"AProgramSetuptoolsCannotExecute", "build", "missing_program",
     {{kSummary, Holds::is, "the build runs swig, a program this image does not have"}},
     "      error: command 'swig' failed: No such file or directory\n"},
    // evnn-pytorch 0.2.0's setup.py catches torch.cuda.get_device_capability()'s error and warns; the
    // build goes on (CPU sources) and fails on a header: the warning is not the cause.
    {"ACudaErrorTheBuildWarnedOfAndWentOnPastIsNotItsCause", "build", "compile_error",
     {{kSummary, Holds::in, "cblas.h: No such file or directory"}},
     "      /build/src/setup.py:33: UserWarning: Error while detecting GPU architecture: Torch not compiled with "
     "CUDA enabled\n                               Use env var EVNN_CUDA_COMPUTE to set cuda compute capability\n"
     "      lib/blas.h:83:10: fatal error: cblas.h: No such file or directory\n"},
    {"UnknownFailureKeepsTheLogTail", "configure", "configure_failed",
     {{kEvidence, Holds::in, "something odd"}},
     "line1\nline2\nsomething odd\n"},
    {"FirstCompileErrorWins", "build", "compile_error",
     {{kSummary, Holds::is, "compile error in /src/kernels/ops/cpu/nms_kernel.cpp:42: 'foo' was not declared in this scope"}},
     "[1/9] Building CXX object x.o\nFAILED: x.o\n/src/kernels/ops/cpu/nms_kernel.cpp:42:7: error: 'foo' "
     "was not declared in this scope\n/src/b.cpp:1:1: error: later\n"},
    // Seen with pip torch 2.1.2 in a container without an NVIDIA driver.
    {"ProgramsThatNeedTheDriverToStart", "test", "missing_shared_library", {{kSummary, Holds::in, "NVIDIA driver"}},
     "/build/registration: error while loading shared libraries: libcuda.so.1: cannot open shared "
     "object file: No such file or directory\n"},
    // examples/detrstyle in the trixie image (Python 3.13: carets and tildes under the frames)
    {"SetupPyThatNeedsAGpuInPython313", "build", "setup_needs_gpu",
     {{kEvidence, Holds::in, "/tmp/detrstyle/setup.py\", line 28"}},
     "  ╰─> [18 lines of output]\n"
     "      Traceback (most recent call last):\n"
     "        File \"<string>\", line 2, in <module>\n"
     "          exec(compile('''\n"
     "          ~~~~^^^^^^^^^^^^\n"
     "          ''' % ('/tmp/detrstyle/setup.py',), \"<pip-setuptools-caller>\", \"exec\"))\n"
     "        File \"<pip-setuptools-caller>\", line 35, in <module>\n"
     "        File \"/tmp/detrstyle/setup.py\", line 42, in <module>\n"
     "          ext_modules=extensions(),\n"
     "                      ~~~~~~~~~~^^\n"
     "        File \"/tmp/detrstyle/setup.py\", line 28, in extensions\n"
     "          raise NotImplementedError(\"Cuda is not availabel\")\n"
     "      NotImplementedError: Cuda is not availabel\n"
     "      [end of output]\n"
     "error: metadata-generation-failed\n"},
    // horovod 0.28.1 in Debian trixie (gcc 14, torch 2.6, no CUDA): its CMake looks for nvcc and goes
    // on without it ("-- Could not find nvcc", a status line); what fails is its C++ (its real log).
    {"ACMakeStatusLineIsNotTheFailure", "build", "compile_error",
     {{kSummary, Holds::in, "compile error in horovod/common/group_table.h:35: ‘string’ in namespace ‘std’"},
      {kFix, Holds::in, "add #include <string> to horovod/common/group_table.h"}},
     "      -- Looking for a CUDA compiler - NOTFOUND\n"
     "      -- Could not find nvcc, please set CUDAToolkit_ROOT.\n"
     "      /build/src/horovod/common/group_table.h:35:47: error: ‘string’ in namespace ‘std’ does not name a type\n"
     "      /build/src/horovod/common/group_table.h:19:1: note: ‘std::string’ is defined in header ‘<string>’; this is "
     "probably fixable by adding ‘#include <string>’\n"},
    // torch-points-kernels 0.7 (2021) in Debian trixie (gcc 14, torch 2.6): its real log.
    {"MissingStandardIncludeNamesTheHeader", "build", "compile_error",
     {{kSummary, Holds::in, "compile error in cpu/src/neighbors.cpp:47: ‘unique_ptr’ is not a member of ‘std’"},
      {kFix, Holds::in, "add #include <memory> to cpu/src/neighbors.cpp"}},
     "      In file included from cpu/src/knn.cpp:2:\n"
     "      cpu/src/neighbors.cpp:47:10: error: ‘unique_ptr’ is not a member of ‘std’\n"
     "         47 |     std::unique_ptr<my_kd_tree_t> index(new my_kd_tree_t(3, pcd, tree_params));\n"
     "            |          ^~~~~~~~~~\n"
     "      cpu/src/neighbors.cpp:7:1: note: ‘std::unique_ptr’ is defined in header ‘<memory>’; this is probably "
     "fixable by adding ‘#include <memory>’\n"},
    // chamferdist 1.0.3's setup.py forces -std=c++17; torch 2.14's headers need C++20 (its real log).
    {"CxxStandardForcedBySetupPyIsNamed", "build", "cxx_standard",
     {{kFix, Holds::in, "the build forces -std=c++17"}, {kFix, Holds::in, "-std=c++20 or newer"}},
     "x86_64-linux-gnu-g++ -fno-strict-overflow -I/usr/lib/python3/dist-packages/torch/include -c "
     "chamferdist/ext.cpp -o build/ext.o -std=c++17 -DTORCH_EXTENSION_NAME=_C\n"
     "/usr/lib/python3/dist-packages/torch/include/torch/csrc/api/include/torch/all.h:5:2: error: "
     "#error C++20 or later compatible compiler is required to use PyTorch.\n"},
    {"ThcHeadersNeedAnOlderTorch", "build", "torch_too_new",
     {{kSummary, Holds::in, "torch 1.11 removed THC"}},
     "/src/src/cuda/ms_deform_attn_cuda.cu:17:10: fatal error: THC/THC.h: No such file or directory\n"},
    {"Pybind11HeadersMissingIsTheImagesFault", "build", "image_missing_prerequisite",
     {{kSummary, Holds::in, "pybind11's C++ headers"}, {kFix, Holds::in, "pybind11-dev"}},
     "In file included from /usr/lib/python3/dist-packages/torch/include/torch/extension.h:6,\n"
     "                 from /tmp/ggB/csrc/gpugated.cpp:7:\n"
     "/usr/lib/python3/dist-packages/torch/include/torch/csrc/Exceptions.h:13:10: fatal error: "
     "pybind11/pybind11.h: No such file or directory\n"
     "   13 | #include <pybind11/pybind11.h>\n"
     "compilation terminated.\n"},
    // flash-mla 1.0.0.dev0's setup.py runs git: the image lacks it, a user's machine has it.
    {"GitMissingIsTheImagesFault", "build", "image_missing_prerequisite",
     {{kSummary, Holds::in, "the cell image lacks git, which the project's build runs: the image's fault"},
      {kFix, Holds::in, "a Containerfile of your own"}, {kFix, Holds::in, "apt-get install git); opmatrix's own images do not"}},
     "          raise child_exception_type(errno_num, err_msg, err_filename)\n"
     "      FileNotFoundError: [Errno 2] No such file or directory: 'git'\n"
     "error: metadata-generation-failed\n"},
    // deep-gemm 1.0.0's sdist lacks its cutlass submodule, which its setup.py copies.
    {"AFileTheSdistLacksIsNamed", "build", "source_lacks_file",
     {{kSummary, Holds::in, "the build reads third-party/cutlass/include/cute, which the project's source (its sdist) "
                            "does not hold"},
      {kFix, Holds::in, "git submodule update --init"}},
     "  Building wheel for deep_gemm (setup.py): finished with status 'error'\n"
     "      error: [Errno 2] No such file or directory: '/build/src/third-party/cutlass/include/cute'\n"},
    // fairseq 0.12.2's setup.py names a C++ source its sdist does not hold; ninja says so.
    {"ASourceTheSdistLacksIsNamed", "build", "source_lacks_file",
     {{kSummary, Holds::in, "the build reads fairseq/clib/libbase/balanced_assignment.cpp, which the project's source"}},
     "      ninja: error: '/build/src/fairseq/clib/libbase/balanced_assignment.cpp', needed by "
     "'/build/src/build/temp.linux-x86_64-cpython-313/fairseq/clib/libbase/balanced_assignment.o', missing and no "
     "known rule to make it\n"},
};

class DiagnoseOneLog : public ::testing::TestWithParam<OneLog> {};
}  // namespace

TEST_P(DiagnoseOneLog, KindAndWords) {
  const OneLog& c = GetParam();
  expect_diagnosis(step(c.log, c.step), c.kind, c.parts);
}
INSTANTIATE_TEST_SUITE_P(Diagnose, DiagnoseOneLog, ::testing::ValuesIn(kOneLogs),
                         [](const ::testing::TestParamInfo<OneLog>& info) { return std::string(info.param.name); });

TEST(Diagnose, LinkErrorAndUndefinedSymbolDemangled) {
  EXPECT_EQ(step("/usr/bin/ld: x.o: undefined reference to `c10::cuda::getCurrentCUDAStream(signed char)'\n").kind,
            "link_error");
  Diagnosis d = step("OSError: lib.so: undefined symbol: _ZN3c106detail14torchCheckFailEPKcS2_jRKSs\n", "test");
  EXPECT_EQ(d.kind, "undefined_symbol");
  EXPECT_NE(d.summary.find("c10::detail::torchCheckFail(char const*, char const*, unsigned int, std::string const&)"),
            std::string::npos) << d.summary;
}

// deform-conv 0.0.0's setup.py imports Cython at its top and declares no build requirement: a
// user's isolated pip install fails alike. The image's own prerequisites stay the environment's.
TEST(Diagnose, ASetupPyImportingAnUndeclaredModuleNamesIt) {
  const std::string log = "      Traceback (most recent call last):\n        File \"/build/src/setup.py\", line 3, in "
                          "<module>\n          from Cython.Build import cythonize\n      ModuleNotFoundError: No module "
                          "named 'Cython'\n      [end of output]\nerror: metadata-generation-failed\n";
  Diagnosis d = step(log, "build");
  EXPECT_EQ(d.kind, "undeclared_build_requirement");
  EXPECT_EQ(d.summary, "setup.py imports Cython, which the project does not declare as a build requirement "
                       "(pyproject.toml's [build-system] requires): a user's pip install, which builds in isolation, "
                       "fails alike");
  EXPECT_NE(d.fix.find("declare Cython in pyproject.toml's [build-system] requires"), std::string::npos);
  // A dotted module means its package imported and lacks it (MinkowskiEngine 0.5.4: numpy.distutils).
  Diagnosis removed = step("  File \"/build/src/setup.py\", line 9, in <module>\nModuleNotFoundError: No module named "
                           "'numpy.distutils'\n", "build");
  EXPECT_EQ(removed.kind, "build_module_removed");
  EXPECT_EQ(removed.summary, "setup.py imports numpy.distutils, which the installed numpy does not have (its newer "
                             "releases removed it): the build cannot run with this numpy");
  // Without setup.py in the traceback (an import of the package's own code): not this.
  EXPECT_NE(step("ModuleNotFoundError: No module named 'Cython'\n", "build").kind, "undeclared_build_requirement");
  // pybind11, an image prerequisite: the environment's rule.
  EXPECT_NE(step("  File \"/build/src/setup.py\", line 2\nModuleNotFoundError: No module named 'pybind11'\n", "build")
                .kind,
            "undeclared_build_requirement");
}

// mmcv 2.2.0 on Python 3.13: its get_version() reads locals()['__version__'] after exec(), which
// PEP 667 no longer lets change a function's locals(). Any other exception of setup.py is named
// with its line rather than "exit code 1".
TEST(Diagnose, WhatSetupPyRaisedIsNamedAtItsLine) {
  const std::string log =
      "        File \"<pip-setuptools-caller>\", line 35, in <module>\n"
      "        File \"/build/src/setup.py\", line 462, in <module>\n          version=get_version(),\n"
      "        File \"/build/src/setup.py\", line 43, in get_version\n          return locals()['__version__']\n"
      "                 ~~~~~~~~^^^^^^^^^^^^^^^\n      KeyError: '__version__'\n      [end of output]\n"
      "error: metadata-generation-failed\n";
  Diagnosis d = step(log, "build");
  EXPECT_EQ(d.kind, "python_semantics_changed");
  EXPECT_NE(d.summary.find("setup.py:43 (get_version): `return locals()['__version__']` raised KeyError: "
                           "'__version__'"), std::string::npos) << d.summary;
  EXPECT_NE(d.summary.find("PEP 667"), std::string::npos);
  Diagnosis other = step("        File \"/build/src/setup.py\", line 12, in <module>\n          "
                         "read_requirements()\n      ValueError: bad line\nerror: metadata-generation-failed\n",
                         "build");
  EXPECT_EQ(other.kind, "setup_py_raised");
  EXPECT_EQ(other.summary, "setup.py raised: setup.py:12 (<module>): `read_requirements()` raised ValueError: bad line");
}

// A person knows the file as it is in their repository: the summary drops the cell's copy
// (/build/src/), the evidence keeps the log's own words.
TEST(Diagnose, SourcePathsAreTheProjectsNotTheContainers) {
  const std::string line = "/build/src/models/ops/src/ms_deform_attn_cpu.cpp:65:12: error: 'foo' was not declared";
  Diagnosis d = step(line + "\n");
  EXPECT_EQ(d.kind, "compile_error");
  EXPECT_NE(d.summary.find("compile error in models/ops/src/ms_deform_attn_cpu.cpp:65"), std::string::npos) << d.summary;
  EXPECT_EQ(d.summary.find("/build/src/"), std::string::npos) << d.summary;
  EXPECT_NE(d.evidence.find("/build/src/models"), std::string::npos) << d.evidence;
}

TEST(Diagnose, TorchNeedsANewerCudaRuntimeThanTheToolkit) {
  // Seen with pip torch 2.10 (CUDA 12.8) next to Debian's nvcc 12.4.
  Diagnosis d = step("/usr/bin/ld: /opt/venv/lib/python3.11/site-packages/torch/lib/libc10_cuda.so: undefined "
                     "reference to `cudaGetDriverEntryPointByVersion@libcudart.so.12'\n");
  EXPECT_EQ(d.kind, "cudart_too_old");
  EXPECT_NE(d.summary.find("cudaGetDriverEntryPointByVersion"), std::string::npos) << d.summary;
  EXPECT_NE(d.summary.find("libc10_cuda.so"), std::string::npos) << d.summary;
  // Our own object missing a cudart symbol is an ordinary link error.
  EXPECT_EQ(step("/usr/bin/ld: x.o: undefined reference to `cudaMalloc@libcudart.so.12'\n").kind, "link_error");
}

// torchpipe 0.2.25's import compiles its extension where it has no build for the torch: at the
// load step's limit its container still ran the compiler. Not a hang: the summary says so.
TEST(Diagnose, ATimeoutWhileCompilingSaysSo) {
  StepFailure f;
  f.step = "load";
  f.timed_out = true;
  f.timeout_s = 600;
  f.log = std::string("\n") + kTimeLimitListing + "\nCOMMAND\npython3\nninja\ncc1plus\ncc1plus\nsh\n";
  const Diagnosis d = diagnose_step(f);
  EXPECT_EQ(d.kind, "timeout");
  EXPECT_EQ(d.summary, "the load step ran past its limit of 600 s and was stopped while still compiling (cc1plus ×2, "
                       "ninja running)");
  EXPECT_NE(d.fix.find("it was compiling, not hung"), std::string::npos) << d.fix;
  f.log = std::string("\n") + kTimeLimitListing + "\nCOMMAND\npython3\n";
  EXPECT_EQ(diagnose_step(f).summary, "the load step ran past its limit of 600 s and was stopped");
}

TEST(Diagnose, TimeoutAndCrashComeFirst) {
  StepFailure f;
  f.step = "build";
  f.timed_out = true;
  f.timeout_s = 60;
  EXPECT_EQ(diagnose_step(f).kind, "timeout");
  f.timed_out = false;
  f.signal = 9;
  EXPECT_EQ(diagnose_step(f).kind, "killed") << "SIGKILL comes from outside: the infrastructure's";
  EXPECT_NE(diagnose_step(f).summary.find("SIGKILL"), std::string::npos);
  f.signal = 11;
  EXPECT_EQ(diagnose_step(f).kind, "crash") << "a program's own SIGSEGV is a finding";
}

TEST(Diagnose, TestFailuresByKind) {
  TestOutcome t;
  t.status = Status::fail;
  t.message = "NotImplementedError: Could not run 'torchvision::nms' with arguments from the 'CUDA' backend.";
  Diagnosis d = diagnose_test(t, "ctest -R x");
  EXPECT_EQ(d.kind, "not_registered");
  EXPECT_NE(d.summary.find("torchvision::nms has no CUDA kernel"), std::string::npos);
  t.message = "roi_align forward: max abs error 0.031 exceeds tolerance 1e-05";
  EXPECT_EQ(diagnose_test(t, "").kind, "numerical_mismatch");
  t.message = "expected 3 == 4";
  EXPECT_EQ(diagnose_test(t, "").kind, "test_failure");
  t.status = Status::crash;
  t.message = "Exception: SegFault";
  EXPECT_EQ(diagnose_test(t, "").kind, "crash");
}

TEST(Diagnose, DemangleLeavesPlainNamesAlone) {
  EXPECT_EQ(demangle("_Z27ms_deform_attn_cuda_forwardRKN2at6TensorE"), "ms_deform_attn_cuda_forward(at::Tensor const&)");
  EXPECT_EQ(demangle("plain_c_symbol"), "plain_c_symbol");
}

// --- Python extension builds: the image's fault, setup.py's GPU gate, the torch it needs ------
// Log excerpts from real runs on the build host (Debian bookworm, torch 1.13.1, pip 23.0.1),
// building examples/gpugated and examples/detrstyle with `pip wheel --no-deps
// --no-build-isolation`; the image's faults reproduced by hiding the file in a private mount
// namespace (`unshare -m`, `mount --bind EMPTY …`).

TEST(Diagnose, PythonHeadersMissingIsTheImagesFault) {
  Diagnosis d = step(
      "  × python setup.py bdist_wheel did not run successfully.\n"
      "  │ exit code: 1\n"
      "  ╰─> [97 lines of output]\n"
      "      [1/1] c++ -MMD -MF /tmp/ggA/build/temp.linux-x86_64-cpython-311/csrc/gpugated.o.d -fPIC "
      "-I/usr/lib/python3/dist-packages/torch/include -I/usr/include/python3.11 -c -c /tmp/ggA/csrc/gpugated.cpp "
      "-o /tmp/ggA/build/temp.linux-x86_64-cpython-311/csrc/gpugated.o -DTORCH_EXTENSION_NAME=_C -std=c++14\n"
      "      FAILED: /tmp/ggA/build/temp.linux-x86_64-cpython-311/csrc/gpugated.o\n"
      "      In file included from /usr/lib/python3/dist-packages/torch/include/torch/csrc/Device.h:4,\n"
      "                       from /usr/lib/python3/dist-packages/torch/include/torch/extension.h:6,\n"
      "                       from /tmp/ggA/csrc/gpugated.cpp:7:\n"
      "      /usr/lib/python3/dist-packages/torch/include/torch/csrc/python_headers.h:12:10: fatal error: Python.h: "
      "No such file or directory\n"
      "         12 | #include <Python.h>\n"
      "            |          ^~~~~~~~~~\n"
      "      compilation terminated.\n"
      "      ninja: build stopped: subcommand failed.\n"
      "      RuntimeError: Error compiling objects for extension\n"
      "  ERROR: Failed building wheel for gpugated\n");
  expect_diagnosis(d, "image_missing_prerequisite",
                   {{kSummary, Holds::in, "lacks Python's C headers (Python.h)"},
                    {kSummary, Holds::in, "the image's fault, not the library's"}, {kSummary, Holds::not_in, "fix the code"},
                    {kFix, Holds::not_in, "fix the code at that line"}, {kFix, Holds::in, "python3-dev"},
                    {kFix, Holds::in, "rebuild the cell image with the current opmatrix Containerfiles"},
                    {kEvidence, Holds::is,
                     "/usr/lib/python3/dist-packages/torch/include/torch/csrc/python_headers.h:12:10: fatal error: "
                     "Python.h: No such file or directory"}});
  // clang's wording, and nvcc (which reports with the host compiler's words)
  EXPECT_EQ(step("/usr/include/torch/csrc/python_headers.h:12:10: fatal error: 'Python.h' file not found\n").kind,
            "image_missing_prerequisite");
}

TEST(Diagnose, EmptySetuptoolsNamespacePackage) {
  // A dist-packages/setuptools folder without its code: Python imports it as an empty namespace package.
  Diagnosis d = step("  ╰─> [6 lines of output]\n"
                     "      Traceback (most recent call last):\n"
                     "        File \"<string>\", line 2, in <module>\n"
                     "        File \"<pip-setuptools-caller>\", line 34, in <module>\n"
                     "        File \"/tmp/ggB/setup.py\", line 15, in <module>\n"
                     "          from setuptools import setup\n"
                     "      ImportError: cannot import name 'setup' from 'setuptools' (unknown location)\n"
                     "      [end of output]\n"
                     "  note: This error originates from a subprocess, and is likely not a problem with pip.\n"
                     "note: This is an issue with the package mentioned above, not pip.\n");
  expect_diagnosis(d, "image_missing_prerequisite",
                   {{kSummary, Holds::in, "empty namespace package"}, {kFix, Holds::in, "python3-setuptools"},
                    {kEvidence, Holds::is, "ImportError: cannot import name 'setup' from 'setuptools' (unknown location)"}});
  // The issue's own words, and the other faces of the same package.
  EXPECT_EQ(step("ImportError: cannot import name 'find_packages' from 'setuptools' (unknown location)\n").kind,
            "image_missing_prerequisite");
  EXPECT_EQ(step("AttributeError: module 'setuptools' has no attribute 'setup'\n").kind, "image_missing_prerequisite");
  // torch.utils.cpp_extension on that package
  Diagnosis c = step("  File \"/usr/lib/python3/dist-packages/torch/utils/cpp_extension.py\", line 24, in <module>\n"
                     "    from setuptools.command.build_ext import build_ext\n"
                     "ModuleNotFoundError: No module named 'setuptools.command'\n");
  EXPECT_EQ(c.kind, "image_missing_prerequisite");
  EXPECT_NE(c.summary.find("lacks setuptools"), std::string::npos);
}

TEST(Diagnose, PythonBuildToolsMissing) {
  struct Case {
    const char* log;
    const char* what;
    const char* install;
  };
  const Case cases[] = {
      {"ModuleNotFoundError: No module named 'setuptools'\n", "lacks setuptools,", "python3-setuptools"},
      {"ModuleNotFoundError: No module named 'pybind11'\n", "pybind11 Python package", "python3-pybind11"},
      {"ModuleNotFoundError: No module named 'wheel'\n", "the wheel package", "python3-wheel"},
      {"/usr/bin/python3: No module named pip\n", "lacks pip,", "python3-pip"},
      // bookworm's venv (ensurepip: pip 23.0.1 + setuptools 66.1.1, no wheel), pip wheel of a setup.py project
      {"  × python setup.py bdist_wheel did not run successfully.\n  │ exit code: 1\n  ╰─> [6 lines of output]\n"
       "      usage: setup.py [global_opts] cmd1 [cmd1_opts] [cmd2 [cmd2_opts] ...]\n"
       "      error: invalid command 'bdist_wheel'\n      [end of output]\n",
       "the wheel package", "pip install wheel"},
  };
  for (const auto& c : cases) {
    Diagnosis d = step(c.log);
    EXPECT_EQ(d.kind, "image_missing_prerequisite") << c.log;
    EXPECT_NE(d.summary.find(c.what), std::string::npos) << d.summary;
    EXPECT_NE(d.fix.find(c.install), std::string::npos) << d.fix;
  }
  // pip's own internals, or another package named like one, are not these.
  EXPECT_NE(step("ModuleNotFoundError: No module named 'pip_tools'\n").kind, "image_missing_prerequisite");
  EXPECT_NE(step("ModuleNotFoundError: No module named 'wheelhouse'\n").kind, "image_missing_prerequisite");
}

TEST(Diagnose, SetupPyThatNeedsAGpu) {
  // examples/detrstyle (Deformable-DETR's gate) on the build host: pip wheel's metadata step
  Diagnosis d = step("  × python setup.py egg_info did not run successfully.\n"
                     "  │ exit code: 1\n"
                     "  ╰─> [10 lines of output]\n"
                     "      No CUDA runtime is found, using CUDA_HOME='/usr/local/cuda'\n"
                     "      Traceback (most recent call last):\n"
                     "        File \"<string>\", line 2, in <module>\n"
                     "        File \"<pip-setuptools-caller>\", line 34, in <module>\n"
                     "        File \"/work/main/examples/detrstyle/setup.py\", line 42, in <module>\n"
                     "          ext_modules=extensions(),\n"
                     "                      ^^^^^^^^^^^^\n"
                     "        File \"/work/main/examples/detrstyle/setup.py\", line 28, in extensions\n"
                     "          raise NotImplementedError(\"Cuda is not availabel\")\n"
                     "      NotImplementedError: Cuda is not availabel\n"
                     "      [end of output]\n"
                     "  note: This error originates from a subprocess, and is likely not a problem with pip.\n"
                     "error: metadata-generation-failed\n");
  EXPECT_EQ(d.kind, "setup_needs_gpu");
  EXPECT_EQ(d.summary, "setup.py refuses to build without a visible GPU (it tests torch.cuda.is_available() at build "
                       "time): NotImplementedError: Cuda is not availabel");
  EXPECT_NE(d.fix.find("FORCE_CUDA / CUDA_HOME"), std::string::npos);
  EXPECT_NE(d.fix.find("not on a visible GPU"), std::string::npos);
  EXPECT_EQ(d.evidence, "File \"/work/main/examples/detrstyle/setup.py\", line 28, in extensions\n"
                        "NotImplementedError: Cuda is not availabel");
  // Other wordings, from `python setup.py build_ext` directly.
  EXPECT_EQ(step("Traceback (most recent call last):\n  File \"/src/setup.py\", line 9, in <module>\n"
                 "    raise RuntimeError(\"CUDA is not available\")\nRuntimeError: CUDA is not available\n").kind,
            "setup_needs_gpu");
  EXPECT_EQ(step("Traceback (most recent call last):\n  File \"/src/setup.py\", line 20, in <module>\n"
                 "    major, minor = torch.cuda.get_device_capability()\n"
                 "  File \"/opt/venv/lib/python3.11/site-packages/torch/cuda/__init__.py\", line 314, in _lazy_init\n"
                 "    torch._C._cuda_init()\nRuntimeError: No CUDA GPUs are available\n").kind,
            "setup_needs_gpu");
  // The same words from a test, not from setup.py, are not this.
  EXPECT_NE(step("Traceback (most recent call last):\n  File \"/src/smoke.py\", line 3, in <module>\n"
                 "RuntimeError: CUDA is not available\n", "smoke").kind,
            "setup_needs_gpu");
}

TEST(Diagnose, RealLogsFromTheCellImagesBeforeTheyHadBuildTools) {
  // examples/gpugated in the debian images of 2026-11-23, before their Python-extension layer:
  // no pip at all, and `python3 setup.py build_ext` without setuptools.
  EXPECT_EQ(step("/usr/bin/python3: No module named pip\n").kind, "image_missing_prerequisite");
  Diagnosis trixie = step("Traceback (most recent call last):\n"
                          "  File \"/tmp/gpugated/setup.py\", line 15, in <module>\n"
                          "    from setuptools import setup\n"
                          "ImportError: cannot import name 'setup' from 'setuptools' (unknown location)\n");
  EXPECT_EQ(trixie.kind, "image_missing_prerequisite");
  EXPECT_NE(trixie.summary.find("empty namespace package"), std::string::npos);
  Diagnosis bookworm = step("Traceback (most recent call last):\n"
                            "  File \"/tmp/gpugated/setup.py\", line 15, in <module>\n"
                            "    from setuptools import setup\n"
                            "ModuleNotFoundError: No module named 'setuptools'\n");
  EXPECT_EQ(bookworm.kind, "image_missing_prerequisite");
  EXPECT_EQ(bookworm.evidence, "ModuleNotFoundError: No module named 'setuptools'");
}

TEST(Diagnose, TorchTooOldForTheLibrary) {
  // examples/gpugated's smoke in Debian bookworm's torch 1.13.1
  Diagnosis d = step("Traceback (most recent call last):\n"
                     "  File \"/work/main/examples/gpugated/smoke.py\", line 17, in <module>\n"
                     "    import gpugated  # noqa: E402\n"
                     "    ^^^^^^^^^^^^^^^\n"
                     "  File \"/work/main/examples/gpugated/gpugated/__init__.py\", line 13, in <module>\n"
                     "    from . import ops  # noqa: E402,F401  registers its fake kernel\n"
                     "  File \"/work/main/examples/gpugated/gpugated/ops.py\", line 10, in <module>\n"
                     "    @torch.library.register_fake(\"gpugated::scale\")\n"
                     "     ^^^^^^^^^^^^^^^^^^^^^^^^^^^\n"
                     "AttributeError: module 'torch.library' has no attribute 'register_fake'\n",
                     "smoke");
  EXPECT_EQ(d.kind, "torch_too_old");
  EXPECT_EQ(d.summary, "needs a newer torch: torch.library.register_fake first appeared in torch 2.4");
  EXPECT_NE(d.fix.find("declare `torch>=2.4`"), std::string::npos) << d.fix;
  EXPECT_NE(d.fix.find("expect this cell to fail"), std::string::npos);
  EXPECT_NE(d.fix.find("torch.library.impl_abstract"), std::string::npos);
  EXPECT_EQ(d.evidence, "AttributeError: module 'torch.library' has no attribute 'register_fake'");

  // The same torch, other APIs (each line as that torch prints it).
  Diagnosis i = step("ImportError: cannot import name 'custom_op' from 'torch.library' "
                     "(/usr/lib/python3/dist-packages/torch/library.py)\n", "smoke");
  EXPECT_EQ(i.kind, "torch_too_old");
  EXPECT_EQ(i.summary, "needs a newer torch: torch.library.custom_op first appeared in torch 2.4");
  EXPECT_EQ(step("AttributeError: module 'torch' has no attribute 'compile'\n").summary,
            "needs a newer torch: torch.compile first appeared in torch 2.0");
  EXPECT_EQ(step("ModuleNotFoundError: No module named 'torch.export'\n").summary,
            "needs a newer torch: torch.export first appeared in torch 2.1");
  EXPECT_EQ(step("AttributeError: module 'torch' has no attribute 'library'\n").summary,
            "needs a newer torch: torch.library first appeared in torch 1.12");
  EXPECT_EQ(step("AttributeError: module 'torch.library' has no attribute 'impl_abstract'\n").summary,
            "needs a newer torch: torch.library.impl_abstract first appeared in torch 2.2");
  // Not in the table: no version is made up.
  Diagnosis u = step("AttributeError: module 'torch.nn.functional' has no attribute 'scaled_mm_v9'\n");
  EXPECT_EQ(u.kind, "torch_too_old");
  EXPECT_EQ(u.summary, "needs a newer torch: torch.nn.functional.scaled_mm_v9 is an API this torch lacks");
  // A private module's name says neither newer nor older (onnxruntime-training 1.19.2's ORTModule
  // beside torch 2.15, which no longer has torch.onnx._internal.jit_utils).
  Diagnosis p = step("ImportError: cannot import name 'jit_utils' from 'torch.onnx._internal' "
                     "(/opt/venv/lib/python3.11/site-packages/torch/onnx/_internal/__init__.py)\n");
  EXPECT_EQ(p.kind, "torch_private_api");
  EXPECT_EQ(p.summary.rfind("uses torch.onnx._internal.jit_utils, a private torch API this torch lacks", 0), 0u)
      << p.summary;
  EXPECT_EQ(step("AttributeError: module 'torch.utils._pytree' has no attribute 'tree_map_only_'\n").kind,
            "torch_private_api");
  // Removed APIs need an older torch.
  Diagnosis r = step("ModuleNotFoundError: No module named 'torch._six'\n");
  EXPECT_EQ(r.kind, "torch_too_new");
  EXPECT_EQ(r.summary, "needs an older torch: torch._six was removed in torch 2.0");
  // Not torch's API: a circular import, and torchvision.
  EXPECT_NE(step("AttributeError: partially initialized module 'torch' has no attribute 'Tensor' (most likely due "
                 "to a circular import)\n").kind,
            "torch_too_old");
  EXPECT_NE(step("AttributeError: module 'torchvision' has no attribute 'ops'\n").kind, "torch_too_old");
}

TEST(Diagnose, CompileErrorsIndentedByPip) {
  // pip indents a subprocess's output by six spaces
  Diagnosis d = step("      /tmp/x/csrc/op.cpp:12:5: error: 'parallel_for' is not a member of 'at'\n"
                     "      ninja: build stopped: subcommand failed.\n");
  EXPECT_EQ(d.kind, "compile_error");
  EXPECT_EQ(d.summary, "compile error in /tmp/x/csrc/op.cpp:12: 'parallel_for' is not a member of 'at'");
  EXPECT_EQ(d.evidence, "/tmp/x/csrc/op.cpp:12:5: error: 'parallel_for' is not a member of 'at'");
  EXPECT_NE(d.fix.find("fix the code at that line"), std::string::npos);
  // A header that is not there is not a line to fix.
  Diagnosis h = step("/src/csrc/op.cu:3:10: fatal error: cub/cub.cuh: No such file or directory\n");
  EXPECT_EQ(h.kind, "compile_error");
  EXPECT_EQ(h.fix.find("fix the code at that line"), std::string::npos) << h.fix;
  EXPECT_NE(h.fix.find("cub/cub.cuh is not found"), std::string::npos) << h.fix;
}

}  // namespace opmatrix
