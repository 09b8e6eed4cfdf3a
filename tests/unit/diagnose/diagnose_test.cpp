#include <gtest/gtest.h>

#include "diagnose/diagnose.h"

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
}  // namespace

TEST(Diagnose, CxxStandardTooOld) {
  Diagnosis d = step("In file included from /usr/include/c10/macros/Macros.h:1:\n"
                     "/usr/include/c10/util/C++17.h:24:2: error: #error \"You're trying to build PyTorch with a too old "
                     "version of GCC. We need GCC 9 or later.\"\n#error C++20 or later compatible compiler is required to use PyTorch.\n");
  EXPECT_EQ(d.kind, "cxx_standard");
  EXPECT_NE(d.summary.find("C++20"), std::string::npos);
  EXPECT_EQ(d.repro, "cmake --build /build");
}

TEST(Diagnose, CudaAskedOfACpuTorch) {
  Diagnosis d = step("CMake Error at cmake/OpmatrixTorch.cmake:40 (message):\n  OPMATRIX_WITH_CUDA=ON, but the torch at "
                     "/usr/lib/x86_64-linux-gnu/cmake/Torch was built without CUDA\n", "configure");
  EXPECT_EQ(d.kind, "no_cuda_torch");
}

TEST(Diagnose, UnsupportedArch) {
  Diagnosis d = step("nvcc fatal   : Unsupported gpu architecture 'compute_100'\n");
  EXPECT_EQ(d.kind, "unsupported_arch");
  EXPECT_NE(d.summary.find("compute_100"), std::string::npos);
}

TEST(Diagnose, FirstCompileErrorWins) {
  Diagnosis d = step("[1/9] Building CXX object x.o\nFAILED: x.o\n/src/kernels/ops/cpu/nms_kernel.cpp:42:7: error: 'foo' "
                     "was not declared in this scope\n/src/b.cpp:1:1: error: later\n");
  EXPECT_EQ(d.kind, "compile_error");
  EXPECT_EQ(d.summary, "compile error in /src/kernels/ops/cpu/nms_kernel.cpp:42: 'foo' was not declared in this scope");
}

TEST(Diagnose, LinkErrorAndUndefinedSymbolDemangled) {
  EXPECT_EQ(step("/usr/bin/ld: x.o: undefined reference to `c10::cuda::getCurrentCUDAStream(signed char)'\n").kind,
            "link_error");
  Diagnosis d = step("OSError: lib.so: undefined symbol: _ZN3c106detail14torchCheckFailEPKcS2_jRKSs\n", "test");
  EXPECT_EQ(d.kind, "undefined_symbol");
  EXPECT_NE(d.summary.find("c10::detail::torchCheckFail(char const*, char const*, unsigned int, std::string const&)"),
            std::string::npos) << d.summary;
}

TEST(Diagnose, MixedCompilersAtLinkTime) {
  // Seen in trixie's CUDA cell: g++ 14 objects linked against nvcc 12.4's g++-13 libstdc++.
  Diagnosis d = step("/usr/bin/ld: x.o: in function `f':\nx.cpp:(.text+0x3c9): undefined reference to `__cxa_call_terminate'\n");
  EXPECT_EQ(d.kind, "libstdcxx_mismatch");
  EXPECT_NE(d.fix.find("CMAKE_CXX_COMPILER=g++-13"), std::string::npos);
}

TEST(Diagnose, ProgramsThatNeedTheDriverToStart) {
  // Seen with pip torch 2.1.2 in a container without an NVIDIA driver.
  Diagnosis d = step("/build/registration: error while loading shared libraries: libcuda.so.1: cannot open shared "
                     "object file: No such file or directory\n", "test");
  EXPECT_EQ(d.kind, "missing_shared_library");
  EXPECT_NE(d.summary.find("NVIDIA driver"), std::string::npos);
}

TEST(Diagnose, DiskFullIsNotACompileError) {
  Diagnosis d = step("/src/cases/device/nms_device.cpp:60:1: fatal error: error writing to /tmp/cc.s: No space left on device\n");
  EXPECT_EQ(d.kind, "disk_full");
}

TEST(Diagnose, TimeoutAndCrashComeFirst) {
  StepFailure f;
  f.step = "build";
  f.timed_out = true;
  f.timeout_s = 60;
  EXPECT_EQ(diagnose_step(f).kind, "timeout");
  f.timed_out = false;
  f.signal = 9;
  EXPECT_EQ(diagnose_step(f).kind, "crash");
  EXPECT_NE(diagnose_step(f).summary.find("SIGKILL"), std::string::npos);
}

TEST(Diagnose, UnknownFailureKeepsTheLogTail) {
  Diagnosis d = step("line1\nline2\nsomething odd\n", "configure");
  EXPECT_EQ(d.kind, "configure_failed");
  EXPECT_NE(d.evidence.find("something odd"), std::string::npos);
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

}  // namespace opmatrix
