// opmatrix::roi_align / _roi_align_backward on CUDA against the CPU kernels (float, double;
// half and bfloat16 against the float CPU result), and the cell's CUDA promise.
#include <ATen/ATen.h>

#include "common/check.h"
#include "common/cuda.h"
#include "common/detection_inputs.h"
#include "common/detection_ops.h"
#include "common/library.h"
#include "common/testbed.h"

namespace opmatrix::cases {
namespace {

class RoiAlignDevice : public ::testing::TestWithParam<at::ScalarType> {
 protected:
  double tolerance() const {
    switch (GetParam()) {
      case at::kDouble: return 1e-10;
      case at::kFloat: return 1e-4;
      case at::kHalf: return 1e-2;
      default: return 5e-2;  // bfloat16
    }
  }
};

// Not about a dtype: a TEST_F on the parameterised fixture runs once.
TEST_F(RoiAlignDevice, CellCudaPromise) {
  OPMATRIX_CHECK("roi_align", "device");
  OPMATRIX_REQUIRE_OPS();
  expectCudaPromiseKept({"opmatrix::roi_align", "opmatrix::_roi_align_backward"});
}

TEST_P(RoiAlignDevice, CpuAndCudaAgree) {
  OPMATRIX_CHECK("roi_align", "device");
  OPMATRIX_REQUIRE_OPS();
  OPMATRIX_REQUIRE_CUDA("opmatrix::roi_align");
  const auto dtype = GetParam();
  const auto cpu_type = dtype == at::kDouble ? at::kDouble : at::kFloat;
  const at::Tensor input = at::randn({2, 5, 13, 17}, at::TensorOptions().dtype(at::kDouble)).to(dtype);
  const at::Tensor rois = randomRois(40, 2, 13, 17, 0.5, 3, at::kDouble).to(dtype);
  for (const RoiAlignArgs& a : {RoiAlignArgs{0.5, 7, 7, 2, true}, RoiAlignArgs{0.5, 3, 5, 0, false}}) {
    const at::Tensor expected = callRoiAlign(input.to(cpu_type), rois.to(cpu_type), a);
    const at::Tensor got = callRoiAlign(input.cuda(), rois.cuda(), a);
    EXPECT_TRUE(got.is_cuda());
    EXPECT_EQ(got.scalar_type(), dtype);
    EXPECT_TRUE(at::allclose(got.cpu().to(cpu_type), expected, tolerance(), tolerance()))
        << "forward max |diff| " << (got.cpu().to(cpu_type) - expected).abs().max().item<double>();

    const at::Tensor grad = at::randn(expected.sizes(), at::TensorOptions().dtype(at::kDouble)).to(dtype);
    const at::Tensor grad_expected = callRoiAlignBackward(grad.to(cpu_type), rois.to(cpu_type), a, input.sizes());
    const at::Tensor grad_got = callRoiAlignBackward(grad.cuda(), rois.cuda(), a, input.sizes());
    EXPECT_TRUE(at::allclose(grad_got.cpu().to(cpu_type), grad_expected, 4 * tolerance(), 4 * tolerance()))
        << "backward max |diff| " << (grad_got.cpu().to(cpu_type) - grad_expected).abs().max().item<double>();
  }
}

TEST_P(RoiAlignDevice, AutogradOnCuda) {
  OPMATRIX_CHECK("roi_align", "device");
  OPMATRIX_REQUIRE_OPS();
  OPMATRIX_REQUIRE_CUDA("opmatrix::roi_align");
  const auto dtype = GetParam();
  const RoiAlignArgs a{0.5, 2, 3, 2, true};
  const at::Tensor input = at::randn({1, 3, 8, 9}, at::TensorOptions().dtype(dtype).device(at::kCUDA)).set_requires_grad(true);
  const at::Tensor rois = randomRois(5, 1, 8, 9, 0.5, 4, dtype).cuda();
  const at::Tensor out = callRoiAlign(input, rois, a);
  const at::Tensor g = at::ones_like(out);
  out.backward(g);
  ASSERT_TRUE(input.grad().defined());
  EXPECT_TRUE(input.grad().is_cuda());
  // Same kernel both ways, but atomics add in any order: equal up to rounding.
  EXPECT_TRUE(at::allclose(input.grad().cpu().to(at::kDouble),
                           callRoiAlignBackward(g, rois, a, input.sizes()).cpu().to(at::kDouble),
                           tolerance(), tolerance()));
}

INSTANTIATE_TEST_SUITE_P(, RoiAlignDevice, deviceDtypes(), DtypeName());

}  // namespace
}  // namespace opmatrix::cases
