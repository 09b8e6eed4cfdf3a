#include "run/step_progress.h"

#include <gtest/gtest.h>

namespace opmatrix {
namespace {

std::string after(const std::vector<std::string>& lines) {
  StepProgress p;
  for (const auto& l : lines) feed_step_line(p, l);
  return describe_step_progress(p);
}

TEST(StepProgress, NothingBeforeAnyOutput) { EXPECT_EQ(after({}), ""); }

TEST(StepProgress, NinjaSaysStepsDoneOfTheTotal) {
  EXPECT_EQ(after({"[1/86] Building CXX object kernels/CMakeFiles/ops.dir/ops/cpu/nms_kernel.cpp.o",
                   "[12/86] Building CUDA object kernels/CMakeFiles/ops.dir/ops/cuda/roi_align_kernel.cu.o"}),
            "compiling: 12 of 86 build steps done (last: roi_align_kernel.cu.o)");
}

TEST(StepProgress, MakeSaysItsPercent) {
  EXPECT_EQ(after({"[ 45%] Building CXX object CMakeFiles/boxops.dir/csrc/box_iou.cpp.o"}),
            "compiling: 45 % done (last: box_iou.cpp.o)");
}

// setuptools without ninja (torch-cluster's use_ninja=False) prints one compiler line per file.
TEST(StepProgress, CompilerLinesAreCountedWhereNoToolGivesATotal) {
  EXPECT_EQ(after({"building 'torch_scatter._scatter_cpu' extension",
                   "x86_64-linux-gnu-g++ -fno-strict-overflow -fPIC -I/usr/include -c /tmp/x/csrc/scatter.cpp -o build/scatter.o -O3",
                   "/usr/local/cuda/bin/nvcc -I/usr/include -c csrc/cuda/scatter_cuda.cu -o build/scatter_cuda.o --compiler-options"}),
            "compiling: 2 translation units started (last: scatter_cuda.cu)");
}

TEST(StepProgress, TestsByCTestGoogleTestAndPytest) {
  EXPECT_EQ(after({"    Start 3: Meta.Nms", " 3/40 Test  #3: Meta.Nms .........   Passed    0.31 sec"}),
            "tests: 3 of 40 done (last: Meta.Nms)");
  EXPECT_EQ(after({"[ RUN      ] Correctness.Nms", "[       OK ] Correctness.Nms (3 ms)", "[ RUN      ] Correctness.RoiAlign"}),
            "tests: 2 started, running Correctness.RoiAlign");
  EXPECT_EQ(after({"test/test_scatter.py::test_forward[sum-float] PASSED                    [ 37%]"}),
            "tests: 37 % done (last: test/test_scatter.py::test_forward[sum-float])");
}

// A build's output is not ours: a count longer than an int holds is no progress, never an
// exception that ends the run.
TEST(StepProgress, ACountTooLongForAnIntIsNoProgress) {
  EXPECT_NO_THROW(after({"[99999999999/2] Building CXX object x.o", "[ 99999999999%] Building x.o",
                         " 99999999999/99999999999 Test  #3: Meta.Nms"}));
  EXPECT_EQ(after({"[12/86] Building CXX object a.o", "[99999999999/2] x"}),
            "compiling: 12 of 86 build steps done (last: a.o)");
}

TEST(StepProgress, AnythingElseIsTheLastLineShortened) {
  EXPECT_EQ(after({"opcheck: nms", "", "opcheck: roi_align   "}), "opcheck: roi_align");
  const std::string long_line(200, 'x');
  EXPECT_EQ(after({long_line}).size(), std::string(89, 'x').size() + std::string("…").size());
}

}  // namespace
}  // namespace opmatrix
