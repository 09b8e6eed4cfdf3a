// opmatrix::roi_align on the CPU against the independent reference
// (cases/reference/roi_align.cpp) and against values derived by hand from the definition.
#include <ATen/ATen.h>

#include <string>
#include <tuple>

#include "common/check.h"
#include "common/detection_inputs.h"
#include "common/detection_ops.h"
#include "common/library.h"
#include "common/testbed.h"
#include "reference/roi_align.h"

namespace opmatrix::cases {
namespace {

double tolerance(at::ScalarType t) { return t == at::kDouble ? 1e-12 : 1e-5; }

// (dtype, aligned, sampling_ratio)
using Params = std::tuple<at::ScalarType, bool, int64_t>;

class RoiAlignCorrectness : public ::testing::TestWithParam<Params> {
 protected:
  at::ScalarType dtype() const { return std::get<0>(GetParam()); }
  RoiAlignArgs args(double scale, int64_t ph, int64_t pw) const {
    return {scale, ph, pw, std::get<2>(GetParam()), std::get<1>(GetParam())};
  }
};

// Odd sizes, unequal pooled sizes, two scales; rois inside, across and outside the borders,
// zero-area and inverted ones (cases/common/detection_inputs.cpp).
TEST_P(RoiAlignCorrectness, MatchesReference) {
  OPMATRIX_CHECK("roi_align", "correctness");
  OPMATRIX_REQUIRE_OPS();
  for (double scale : {1.0, 0.5}) {
    const at::Tensor input = seededRandn({2, 3, 11, 13}, 5, dtype());
    const at::Tensor rois = randomRois(24, 2, 11, 13, scale, 6, dtype());
    const auto a = args(scale, 3, 4);
    const at::Tensor out = callRoiAlign(input, rois, a);
    const at::Tensor expected = reference::roiAlign(input, rois, scale, 3, 4, a.sampling_ratio, a.aligned);
    ASSERT_EQ(out.sizes(), expected.sizes());
    EXPECT_EQ(out.scalar_type(), dtype());
    EXPECT_TRUE(at::allclose(out, expected, tolerance(dtype()), tolerance(dtype())))
        << "scale " << scale << ", max |diff| " << (out - expected).abs().max().item<double>();
  }
}

// Many rois and channels: crosses the CPU kernel's (channel, roi-chunk) work items.
TEST_P(RoiAlignCorrectness, MatchesReferenceOnManyRois) {
  OPMATRIX_CHECK("roi_align", "correctness");
  OPMATRIX_REQUIRE_OPS();
  const at::Tensor input = seededRandn({3, 17, 20, 24}, 8, dtype());
  const at::Tensor rois = randomRois(150, 3, 20, 24, 0.25, 9, dtype());
  const auto a = args(0.25, 7, 7);
  const at::Tensor out = callRoiAlign(input, rois, a);
  const at::Tensor expected = reference::roiAlign(input, rois, 0.25, 7, 7, a.sampling_ratio, a.aligned);
  EXPECT_TRUE(at::allclose(out, expected, tolerance(dtype()), tolerance(dtype())))
      << "max |diff| " << (out - expected).abs().max().item<double>();
}

// Bilinear interpolation reproduces a linear image exactly, so for a roi whose samples all
// lie inside, every bin equals the image's value at the bin's mean sample point: its centre.
TEST_P(RoiAlignCorrectness, LinearImageGivesBinCentres) {
  OPMATRIX_CHECK("roi_align", "correctness");
  OPMATRIX_REQUIRE_OPS();
  const int64_t h = 9, w = 12;
  const auto opts = at::TensorOptions().dtype(dtype());
  const at::Tensor image = (2.0 * at::arange(h, opts).view({h, 1}) + 3.0 * at::arange(w, opts).view({1, w}) + 1.0)
                               .view({1, 1, h, w});
  const double x1 = 2.25, y1 = 1.5, x2 = 8.75, y2 = 6.0;  // inside, away from the borders
  const at::Tensor rois = at::tensor({0.0, x1, y1, x2, y2}, opts).view({1, 5});
  const auto a = args(1.0, 3, 2);
  const at::Tensor out = callRoiAlign(image, rois, a);
  const double off = a.aligned ? 0.5 : 0.0;
  const double bin_h = (y2 - y1) / 3, bin_w = (x2 - x1) / 2;
  for (int64_t ph = 0; ph < 3; ++ph) {
    for (int64_t pw = 0; pw < 2; ++pw) {
      const double cy = y1 - off + (ph + 0.5) * bin_h, cx = x1 - off + (pw + 0.5) * bin_w;
      EXPECT_NEAR(out[0][0][ph][pw].item<double>(), 2 * cy + 3 * cx + 1, dtype() == at::kDouble ? 1e-9 : 1e-3)
          << "bin (" << ph << ", " << pw << ")";
    }
  }
}

TEST_P(RoiAlignCorrectness, RoiOutsideTheImageGivesZeros) {
  OPMATRIX_CHECK("roi_align", "correctness");
  OPMATRIX_REQUIRE_OPS();
  const at::Tensor input = seededRandn({1, 2, 6, 7}, 3, dtype()) + 10.0;  // no zeros inside
  const at::Tensor rois = at::tensor({0.0, 20.0, 20.0, 30.0, 25.0, 0.0, -40.0, -30.0, -20.0, -10.0},
                                     at::TensorOptions().dtype(dtype())).view({2, 5});
  const at::Tensor out = callRoiAlign(input, rois, args(1.0, 2, 3));
  EXPECT_TRUE(out.eq(0).all().item<bool>()) << out;
}

TEST_P(RoiAlignCorrectness, SamplesAtTheBordersClampToEdgePixels) {
  OPMATRIX_CHECK("roi_align", "correctness");
  OPMATRIX_REQUIRE_OPS();
  // A roi at the bottom-right corner: samples in (size - 1, size] read the edge pixel, and
  // (unaligned, the roi grows to 1x1) samples beyond `size` contribute 0.
  const at::Tensor input = seededRandn({1, 1, 5, 6}, 4, dtype());
  const at::Tensor rois = at::tensor({0.0, 5.6, 4.6, 6.4, 5.4}, at::TensorOptions().dtype(dtype())).view({1, 5});
  const auto a = args(1.0, 1, 1);
  const at::Tensor out = callRoiAlign(input, rois, a);
  const at::Tensor expected = reference::roiAlign(input, rois, 1.0, 1, 1, a.sampling_ratio, a.aligned);
  EXPECT_TRUE(at::allclose(out, expected, tolerance(dtype()), tolerance(dtype()))) << out << expected;
  if (a.aligned) {  // all samples past the last pixel centre: exactly the corner pixel
    EXPECT_NEAR(out.item<double>(), input[0][0][4][5].item<double>(), tolerance(dtype()));
  }
}

TEST_P(RoiAlignCorrectness, EmptyRoisAndEmptyChannels) {
  OPMATRIX_CHECK("roi_align", "correctness");
  OPMATRIX_REQUIRE_OPS();
  const auto opts = at::TensorOptions().dtype(dtype());
  const at::Tensor out = callRoiAlign(seededRandn({2, 3, 5, 5}, 1, dtype()), at::empty({0, 5}, opts), args(1.0, 2, 2));
  EXPECT_EQ(out.sizes(), (std::vector<int64_t>{0, 3, 2, 2}));
  const at::Tensor rois = at::tensor({0.0, 1.0, 1.0, 3.0, 3.0}, opts).view({1, 5});
  const at::Tensor none = callRoiAlign(at::empty({1, 0, 5, 5}, opts), rois, args(1.0, 2, 2));
  EXPECT_EQ(none.sizes(), (std::vector<int64_t>{1, 0, 2, 2}));
}

TEST_P(RoiAlignCorrectness, NonContiguousInputAndBatchIndex) {
  OPMATRIX_CHECK("roi_align", "correctness");
  OPMATRIX_REQUIRE_OPS();
  const at::Tensor base = seededRandn({2, 4, 9, 10}, 12, dtype());
  const at::Tensor nhwc = base.permute({0, 2, 3, 1}).contiguous().permute({0, 3, 1, 2});
  ASSERT_FALSE(nhwc.is_contiguous());
  const at::Tensor rois = randomRois(10, 2, 9, 10, 1.0, 13, dtype());
  const auto a = args(1.0, 2, 3);
  const at::Tensor out = callRoiAlign(nhwc, rois, a);
  EXPECT_TRUE(at::allclose(out, reference::roiAlign(base, rois, 1.0, 2, 3, a.sampling_ratio, a.aligned),
                           tolerance(dtype()), tolerance(dtype())));
  // Each roi reads only its own image: swapping the images swaps the answers.
  const at::Tensor swapped_rois = rois.clone();
  swapped_rois.select(1, 0).copy_(1 - rois.select(1, 0));
  EXPECT_TRUE(at::allclose(callRoiAlign(base.flip({0}), swapped_rois, a), out, tolerance(dtype()), tolerance(dtype())));
}

TEST_P(RoiAlignCorrectness, RejectsMalformedArguments) {
  OPMATRIX_CHECK("roi_align", "correctness");
  OPMATRIX_REQUIRE_OPS();
  const auto opts = at::TensorOptions().dtype(dtype());
  const at::Tensor input = at::zeros({1, 1, 4, 4}, opts);
  OPMATRIX_EXPECT_REJECTED(callRoiAlign(input, at::zeros({2, 4}, opts), args(1.0, 2, 2)));
  OPMATRIX_EXPECT_REJECTED(callRoiAlign(at::zeros({1, 4, 4}, opts), at::zeros({2, 5}, opts), args(1.0, 2, 2)));
  const auto other = dtype() == at::kFloat ? at::kDouble : at::kFloat;
  OPMATRIX_EXPECT_REJECTED(callRoiAlign(input, at::zeros({2, 5}, at::TensorOptions().dtype(other)), args(1.0, 2, 2)));
}

std::string paramName(const ::testing::TestParamInfo<Params>& info) {
  const int64_t sr = std::get<2>(info.param);
  return std::string(c10::toString(std::get<0>(info.param))) +
         (std::get<1>(info.param) ? "_Aligned" : "_Unaligned") +
         (sr > 0 ? "_Sampling" + std::to_string(sr) : std::string("_AdaptiveSampling"));
}

INSTANTIATE_TEST_SUITE_P(, RoiAlignCorrectness,
                         ::testing::Combine(cpuDtypes(), ::testing::Bool(), ::testing::Values<int64_t>(0, 2, 3)),
                         paramName);

}  // namespace
}  // namespace opmatrix::cases
