// deform_conv2d forward: the 3x3 DCNv2 layers (with mask) of ResNet-50's stages c3-c5 as
// Deformable ConvNets v2 places them, at batch 1 on an 800 x 1088 image and at batch 8 on
// 512 x 512 crops, plus a C4 layer at batch 2 on a 256 x 256 crop.
#include <ATen/CPUGeneratorImpl.h>

#include "sweep.h"

namespace opmatrix_bench {
namespace {

struct Shape {
  std::string name;
  int64_t batch, channels, height, width;
};

}  // namespace

std::vector<Case> deform_conv2d_cases() {
  const std::vector<Shape> shapes{
      {"R50 c3, 800x1088", 1, 128, 100, 136}, {"R50 c4, 800x1088", 1, 256, 50, 68},
      {"R50 c5, 800x1088", 1, 512, 25, 34},   {"R50 c3, 8 x 512x512", 8, 128, 64, 64},
      {"R50 c4, 8 x 512x512", 8, 256, 32, 32}, {"R50 c5, 8 x 512x512", 8, 512, 16, 16},
      {"R50 c4, 2 x 256x256", 2, 256, 16, 16},
  };
  std::vector<Case> cases;
  for (at::ScalarType dtype : {at::kFloat, at::kDouble}) {
    for (const Shape& s : shapes) {
      const std::string label = s.name + ": " + std::to_string(s.batch) + "x" +
          std::to_string(s.channels) + "x" + std::to_string(s.height) + "x" +
          std::to_string(s.width) + " -> " + std::to_string(s.channels) + ", 3x3 pad 1, mask";
      Case c{"deform_conv2d", label, dtype, "torchvision", s.batch >= 8 ? 2 : 3, nullptr};
      c.prepare = [s, dtype] {
        auto gen = at::make_generator<at::CPUGeneratorImpl>(0);
        const auto o = at::TensorOptions().dtype(dtype);
        const int64_t k = 3, N = s.batch, C = s.channels, H = s.height, W = s.width;
        const at::Tensor input = at::randn({N, C, H, W}, gen, o);
        const at::Tensor weight = at::randn({C, C, k, k}, gen, o) * 0.02;
        const at::Tensor offset = at::randn({N, 2 * k * k, H, W}, gen, o) * 2;
        const at::Tensor mask = at::rand({N, k * k, H, W}, gen, o);
        const at::Tensor bias = at::randn({C}, gen, o);
        const auto args = [=] {
          const int64_t one = 1;
          return std::vector<c10::IValue>{input, weight, offset, mask, bias, one, one, one, one,
                                          one, one, one, one, true};
        };
        Prepared p;
        p.reference = [=] { return call("torchvision::deform_conv2d", args()); };
        p.ours = [=] { return call("opmatrix::deform_conv2d", args()); };
        p.compare = close_within(dtype == at::kDouble ? 1e-10 : 1e-4);  // the correctness cases' tolerance
        return p;
      };
      cases.push_back(c);
    }
  }
  return cases;
}

}  // namespace opmatrix_bench
