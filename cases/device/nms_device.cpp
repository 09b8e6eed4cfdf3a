// opmatrix::nms on CUDA against the CPU kernel, and the cell's CUDA promise. Skips with a
// reason where CUDA is legitimately absent; fails where the cell promised it
// (OPMATRIX_EXPECT_CUDA=1) and torch or the library has no CUDA.
#include <ATen/ATen.h>

#include "common/check.h"
#include "common/cuda.h"
#include "common/detection_inputs.h"
#include "common/detection_ops.h"
#include "common/library.h"
#include "common/testbed.h"

namespace opmatrix::cases {
namespace {

class NmsDevice : public ::testing::TestWithParam<at::ScalarType> {};

// Not about a dtype: a TEST_F on the parameterised fixture runs once.
TEST_F(NmsDevice, CellCudaPromise) {
  OPMATRIX_CHECK("nms", "device");
  OPMATRIX_REQUIRE_OPS();
  expectCudaPromiseKept({"opmatrix::nms"});
}

TEST_P(NmsDevice, CpuAndCudaAgree) {
  OPMATRIX_CHECK("nms", "device");
  OPMATRIX_REQUIRE_OPS();
  OPMATRIX_REQUIRE_CUDA("opmatrix::nms");
  const auto dtype = GetParam();
  const bool narrow = isSixteenBit(dtype);
  for (int64_t n : {0, 1, 63, 64, 65, 1000, 3000}) {
    // Coordinates exactly representable in the narrow types (whole numbers), so both
    // devices see identical boxes; the CPU kernel computes in float for them.
    const auto in = randomBoxes(n, 5, at::kDouble);
    const at::Tensor boxes = in.boxes.round().to(dtype);
    const at::Tensor scores = in.scores.to(dtype);
    const auto cpu_type = narrow ? at::kFloat : dtype;
    const at::Tensor expected = callNms(boxes.to(cpu_type), scores.to(cpu_type), 0.5);
    const at::Tensor got = callNms(boxes.cuda(), scores.cuda(), 0.5);
    EXPECT_TRUE(got.is_cuda());
    EXPECT_EQ(got.scalar_type(), at::kLong);
    EXPECT_TRUE(got.cpu().equal(expected)) << n << " boxes: CUDA kept " << got.numel()
                                           << ", CPU kept " << expected.numel();
  }
}

INSTANTIATE_TEST_SUITE_P(, NmsDevice, deviceDtypes(), DtypeName());

}  // namespace
}  // namespace opmatrix::cases
