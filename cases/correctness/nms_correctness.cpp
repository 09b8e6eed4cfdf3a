// opmatrix::nms on the CPU against the independent reference (cases/reference/nms.cpp) and
// against facts derived by hand from the definition.
#include <ATen/ATen.h>

#include <vector>

#include "common/check.h"
#include "common/detection_inputs.h"
#include "common/detection_ops.h"
#include "common/library.h"
#include "common/testbed.h"
#include "reference/nms.h"

namespace opmatrix::cases {
namespace {

at::Tensor longs(std::vector<int64_t> v) { return at::tensor(v, at::kLong); }

class NmsCorrectness : public ::testing::TestWithParam<at::ScalarType> {};

TEST_P(NmsCorrectness, MatchesReferenceOnOverlappingBoxes) {
  OPMATRIX_CHECK("nms", "correctness");
  OPMATRIX_REQUIRE_OPS();
  for (uint64_t seed : {1, 2, 3}) {
    for (double threshold : {0.0, 0.3, 0.5, 0.7, 1.0}) {
      const auto in = randomBoxes(300, seed, GetParam());
      const at::Tensor keep = callNms(in.boxes, in.scores, threshold);
      const at::Tensor expected = reference::nms(in.boxes, in.scores, threshold);
      EXPECT_EQ(keep.scalar_type(), at::kLong);
      ASSERT_TRUE(keep.equal(expected)) << "seed " << seed << " threshold " << threshold
                                        << ": kept " << keep.numel() << ", reference "
                                        << expected.numel();
    }
  }
}

// Several thousand boxes: crosses the CPU kernel's block and parallel-chunk boundaries.
TEST_P(NmsCorrectness, MatchesReferenceOnManyBoxes) {
  OPMATRIX_CHECK("nms", "correctness");
  OPMATRIX_REQUIRE_OPS();
  const auto in = randomBoxes(5000, 7, GetParam(), /*extent=*/1000.0);
  const at::Tensor keep = callNms(in.boxes, in.scores, 0.5);
  EXPECT_GT(keep.numel(), 100);
  EXPECT_LT(keep.numel(), 5000);
  EXPECT_TRUE(keep.equal(reference::nms(in.boxes, in.scores, 0.5)));
}

TEST_P(NmsCorrectness, HandComputedExample) {
  OPMATRIX_CHECK("nms", "correctness");
  OPMATRIX_REQUIRE_OPS();
  // IoU(0, 1) = 81 / 119 ~ 0.68; box 2 overlaps nothing. Scores put box 1 first.
  const at::Tensor boxes = at::tensor({0., 0., 10., 10., 1., 1., 11., 11., 20., 20., 30., 30.},
                                      GetParam()).view({3, 4});
  const at::Tensor scores = at::tensor({0.8, 0.9, 0.7}, GetParam());
  EXPECT_TRUE(callNms(boxes, scores, 0.5).equal(longs({1, 2})));
  EXPECT_TRUE(callNms(boxes, scores, 0.7).equal(longs({1, 0, 2})));
  EXPECT_TRUE(reference::nms(boxes, scores, 0.5).equal(longs({1, 2})));
}

TEST_P(NmsCorrectness, ThresholdIsStrict) {
  OPMATRIX_CHECK("nms", "correctness");
  OPMATRIX_REQUIRE_OPS();
  // Intersection 2, union 4: IoU exactly 0.5, which does not suppress at threshold 0.5.
  const at::Tensor boxes = at::tensor({0., 0., 3., 1., 1., 0., 4., 1.}, GetParam()).view({2, 4});
  const at::Tensor scores = at::tensor({0.9, 0.8}, GetParam());
  EXPECT_TRUE(callNms(boxes, scores, 0.5).equal(longs({0, 1})));
  EXPECT_TRUE(callNms(boxes, scores, 0.49).equal(longs({0})));
}

TEST_P(NmsCorrectness, EmptyInput) {
  OPMATRIX_CHECK("nms", "correctness");
  OPMATRIX_REQUIRE_OPS();
  const at::Tensor keep = callNms(at::empty({0, 4}, GetParam()), at::empty({0}, GetParam()), 0.5);
  EXPECT_EQ(keep.numel(), 0);
  EXPECT_EQ(keep.dim(), 1);
  EXPECT_EQ(keep.scalar_type(), at::kLong);
}

TEST_P(NmsCorrectness, ZeroAreaBoxesNeverSuppress) {
  OPMATRIX_CHECK("nms", "correctness");
  OPMATRIX_REQUIRE_OPS();
  // Identical points and lines: IoU is 0/0 (NaN) or 0, never > threshold.
  const at::Tensor boxes = at::tensor({5., 5., 5., 5., 5., 5., 5., 5., 0., 2., 9., 2., 0., 2., 9., 2.},
                                      GetParam()).view({4, 4});
  const at::Tensor scores = at::tensor({0.1, 0.4, 0.3, 0.2}, GetParam());
  EXPECT_TRUE(callNms(boxes, scores, 0.0).equal(longs({1, 2, 3, 0})));
  EXPECT_TRUE(reference::nms(boxes, scores, 0.0).equal(longs({1, 2, 3, 0})));
}

TEST_P(NmsCorrectness, EqualScoresKeepLowerIndex) {
  OPMATRIX_CHECK("nms", "correctness");
  OPMATRIX_REQUIRE_OPS();
  const at::Tensor boxes = at::tensor({0., 0., 4., 4., 0., 0., 4., 4., 0., 0., 4., 4.}, GetParam()).view({3, 4});
  const at::Tensor scores = at::tensor({0.5, 0.5, 0.5}, GetParam());
  EXPECT_TRUE(callNms(boxes, scores, 0.5).equal(longs({0})));
}

TEST_P(NmsCorrectness, NegativeCoordinatesAndNonContiguousInput) {
  OPMATRIX_CHECK("nms", "correctness");
  OPMATRIX_REQUIRE_OPS();
  auto in = randomBoxes(200, 11, GetParam());
  const at::Tensor shifted = in.boxes - 150.0;  // boxes partly or fully at negative coordinates
  const at::Tensor strided = shifted.t().contiguous().t();  // same values, column-major
  ASSERT_FALSE(strided.is_contiguous());
  const at::Tensor scores = at::stack({in.scores, in.scores}, 1).select(1, 0);  // stride 2
  EXPECT_TRUE(callNms(strided, scores, 0.4).equal(reference::nms(shifted, in.scores, 0.4)));
}

TEST_P(NmsCorrectness, RejectsMalformedArguments) {
  OPMATRIX_CHECK("nms", "correctness");
  OPMATRIX_REQUIRE_OPS();
  const auto t = GetParam();
  OPMATRIX_EXPECT_REJECTED(callNms(at::zeros({5, 3}, t), at::zeros({5}, t), 0.5));
  OPMATRIX_EXPECT_REJECTED(callNms(at::zeros({5, 4}, t), at::zeros({4}, t), 0.5));
  OPMATRIX_EXPECT_REJECTED(callNms(at::zeros({5}, t), at::zeros({5}, t), 0.5));
}

INSTANTIATE_TEST_SUITE_P(, NmsCorrectness, cpuDtypes(), DtypeName());

}  // namespace
}  // namespace opmatrix::cases
