// roi_align forward: the FPN levels P2-P5 of an 800 x 1088 image (batch 2, 256 channels) with
// torchvision's MultiScaleRoIAlign settings (7x7, sampling_ratio 2, aligned=False) and
// Detectron2's ROIAlignV2 (sampling_ratio 0: adaptive grid, aligned=True); Mask R-CNN's 14x14
// mask head; and the shapes the speed issue was found on (small maps, many rois).
#include <ATen/CPUGeneratorImpl.h>

#include "sweep.h"

namespace opmatrix_bench {
namespace {

struct Shape {
  std::string name;
  int64_t batch, channels, height, width, rois, pooled, sampling_ratio;
  double scale;
  bool aligned;
};

}  // namespace

std::vector<Case> roi_align_cases() {
  const std::vector<Shape> shapes{
      {"FPN P2, torchvision", 2, 256, 200, 272, 1000, 7, 2, 0.25, false},
      {"FPN P3, torchvision", 2, 256, 100, 136, 1000, 7, 2, 0.125, false},
      {"FPN P4, torchvision", 2, 256, 50, 68, 1000, 7, 2, 0.0625, false},
      {"FPN P5, torchvision", 2, 256, 25, 34, 1000, 7, 2, 0.03125, false},
      {"FPN P2, Detectron2 v2", 2, 256, 200, 272, 1000, 7, 0, 0.25, true},
      {"FPN P4, Detectron2 v2", 2, 256, 50, 68, 1000, 7, 0, 0.0625, true},
      {"mask head 14x14, P2", 2, 256, 200, 272, 200, 14, 2, 0.25, false},
      {"small map", 2, 256, 64, 64, 1000, 7, 0, 0.0625, true},
      {"small map", 2, 256, 64, 64, 1000, 7, 2, 0.0625, true},
      {"200x200 map", 2, 256, 200, 200, 1000, 7, 0, 0.25, true},
      {"64 ch, many rois", 2, 64, 56, 56, 4000, 7, 2, 0.0625, true},
  };
  std::vector<Case> cases;
  for (at::ScalarType dtype : {at::kFloat, at::kDouble}) {
    for (const Shape& s : shapes) {
      const std::string label = s.name + ": " + std::to_string(s.batch) + "x" +
          std::to_string(s.channels) + "x" + std::to_string(s.height) + "x" +
          std::to_string(s.width) + ", " + std::to_string(s.rois) + " rois, " +
          std::to_string(s.pooled) + "x" + std::to_string(s.pooled) + ", sr " +
          std::to_string(s.sampling_ratio) + (s.aligned ? ", aligned" : "");
      Case c{"roi_align", label, dtype, "torchvision", s.height >= 200 ? 3 : 5, nullptr};
      c.prepare = [s, dtype] {
        auto gen = at::make_generator<at::CPUGeneratorImpl>(7);
        const at::Tensor features =
            at::randn({s.batch, s.channels, s.height, s.width}, gen, at::TensorOptions().dtype(dtype));
        at::Tensor boxes, unused;
        proposals(s.rois, s.rois, 11, dtype, boxes, unused);
        const at::Tensor index = at::randint(s.batch, {s.rois, 1}, gen, at::TensorOptions().dtype(dtype));
        const at::Tensor rois = at::cat({index, boxes}, 1).contiguous();
        const auto args = [=] {
          return std::vector<c10::IValue>{features, rois, s.scale, s.pooled, s.pooled,
                                          s.sampling_ratio, s.aligned};
        };
        Prepared p;
        p.reference = [=] { return call("torchvision::roi_align", args()); };
        p.ours = [=] { return call("opmatrix::roi_align", args()); };
        p.compare = [](const at::Tensor& ref, const at::Tensor& ours, bool& ok) {
          const double diff = (ours - ref).abs().max().item<double>();
          ok = diff == 0;  // the same arithmetic as torchvision: bit-identical
          return format("max|diff| %.2g", diff);
        };
        return p;
      };
      cases.push_back(c);
    }
  }
  return cases;
}

}  // namespace opmatrix_bench
