// Meta kernel of opmatrix::nms. Its output length depends on the data, which meta tensors do
// not carry, so the contract checked here is: 1-D int64 on the meta device, length = the
// number of boxes (the upper bound; the CPU result is never longer), and the same argument
// checks as the CPU kernel.
#include <ATen/ATen.h>

#include "common/check.h"
#include "common/detection_inputs.h"
#include "common/detection_ops.h"
#include "common/library.h"
#include "common/testbed.h"

namespace opmatrix::cases {
namespace {

class NmsMeta : public ::testing::TestWithParam<at::ScalarType> {};

TEST_P(NmsMeta, OutputIsInt64UpperBoundOnMeta) {
  OPMATRIX_CHECK("nms", "meta");
  OPMATRIX_REQUIRE_OPS();
  for (int64_t n : {0, 1, 37, 500}) {
    const auto in = randomBoxes(n, 3, GetParam());
    const at::Tensor cpu = callNms(in.boxes, in.scores, 0.5);
    const at::Tensor meta = callNms(toMeta(in.boxes), toMeta(in.scores), 0.5);
    EXPECT_TRUE(meta.is_meta());
    EXPECT_EQ(meta.dim(), cpu.dim());
    EXPECT_EQ(meta.scalar_type(), cpu.scalar_type());
    EXPECT_EQ(meta.size(0), n);
    EXPECT_LE(cpu.size(0), meta.size(0));
  }
}

TEST_P(NmsMeta, RejectsWhatTheCpuKernelRejects) {
  OPMATRIX_CHECK("nms", "meta");
  OPMATRIX_REQUIRE_OPS();
  const auto t = GetParam();
  for (const auto& [boxes, scores] : {std::pair{at::zeros({5, 3}, t), at::zeros({5}, t)},
                                      std::pair{at::zeros({5, 4}, t), at::zeros({6}, t)}}) {
    EXPECT_THROW(callNms(boxes, scores, 0.5), c10::Error);
    EXPECT_THROW(callNms(toMeta(boxes), toMeta(scores), 0.5), c10::Error);
  }
}

INSTANTIATE_TEST_SUITE_P(, NmsMeta, cpuDtypes(), DtypeName());

}  // namespace
}  // namespace opmatrix::cases
