// Meta kernels of opmatrix::roi_align and _roi_align_backward: output sizes, dtype and
// device (meta) agree with the CPU kernels', and the same arguments are rejected.
#include <ATen/ATen.h>

#include <vector>

#include "common/check.h"
#include "common/detection_inputs.h"
#include "common/detection_ops.h"
#include "common/library.h"
#include "common/testbed.h"

namespace opmatrix::cases {
namespace {

struct Shape {
  std::vector<int64_t> input;
  int64_t rois;
  RoiAlignArgs args;
};

std::vector<Shape> shapes() {
  return {{{2, 3, 11, 13}, 7, {0.5, 3, 4, 2, true}},
          {{1, 5, 8, 8}, 0, {1.0, 7, 7, 0, false}},
          {{3, 1, 1, 9}, 4, {0.25, 1, 5, -1, true}},
          {{1, 0, 6, 6}, 2, {1.0, 2, 2, 2, false}}};
}

class RoiAlignMeta : public ::testing::TestWithParam<at::ScalarType> {};

TEST_P(RoiAlignMeta, ForwardMatchesCpuSizesAndDtype) {
  OPMATRIX_CHECK("roi_align", "meta");
  OPMATRIX_REQUIRE_OPS();
  for (const auto& s : shapes()) {
    const at::Tensor input = at::randn(s.input, at::TensorOptions().dtype(GetParam()));
    const at::Tensor rois = randomRois(s.rois, s.input[0], s.input[2], s.input[3], s.args.spatial_scale, 1,
                                       GetParam());
    const at::Tensor cpu = callRoiAlign(input, rois, s.args);
    expectMetaOf(callRoiAlign(toMeta(input), toMeta(rois), s.args), cpu);
  }
}

TEST_P(RoiAlignMeta, BackwardMatchesCpuSizesAndDtype) {
  OPMATRIX_CHECK("roi_align", "meta");
  OPMATRIX_REQUIRE_OPS();
  for (const auto& s : shapes()) {
    const auto& a = s.args;
    const at::Tensor rois = randomRois(s.rois, s.input[0], s.input[2], s.input[3], a.spatial_scale, 2,
                                       GetParam());
    const at::Tensor grad = at::randn({s.rois, s.input[1], a.pooled_height, a.pooled_width},
                                      at::TensorOptions().dtype(GetParam()));
    const at::Tensor cpu = callRoiAlignBackward(grad, rois, a, s.input);
    expectMetaOf(callRoiAlignBackward(toMeta(grad), toMeta(rois), a, s.input), cpu);
  }
}

TEST_P(RoiAlignMeta, RejectsWhatTheCpuKernelRejects) {
  OPMATRIX_CHECK("roi_align", "meta");
  OPMATRIX_REQUIRE_OPS();
  const auto opts = at::TensorOptions().dtype(GetParam());
  const RoiAlignArgs a{1.0, 2, 2, 2, false};
  const at::Tensor input = at::zeros({1, 2, 4, 4}, opts);
  for (const auto& rois : {at::zeros({3, 4}, opts), at::zeros({3}, opts)}) {
    EXPECT_THROW(callRoiAlign(input, rois, a), c10::Error);
    EXPECT_THROW(callRoiAlign(toMeta(input), toMeta(rois), a), c10::Error);
  }
  const at::Tensor bad_grad = at::zeros({3, 2, 5, 2}, opts);  // pooled height 5 != 2
  const at::Tensor rois = at::zeros({3, 5}, opts);
  EXPECT_THROW(callRoiAlignBackward(bad_grad, rois, a, input.sizes()), c10::Error);
  EXPECT_THROW(callRoiAlignBackward(toMeta(bad_grad), toMeta(rois), a, input.sizes()), c10::Error);
}

INSTANTIATE_TEST_SUITE_P(, RoiAlignMeta, cpuDtypes(), DtypeName());

}  // namespace
}  // namespace opmatrix::cases
