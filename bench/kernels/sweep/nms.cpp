// nms: box counts from one image's per-class detections (1k) to an RPN's or FCOS/RetinaNet's
// pre-NMS candidates over all FPN levels (up to 50k), IoU 0.5 (RPN 0.7 is milder).
#include "sweep.h"

namespace opmatrix_bench {

std::vector<Case> nms_cases() {
  std::vector<Case> cases;
  for (at::ScalarType dtype : {at::kFloat, at::kDouble}) {
    for (int64_t n : {1000, 2000, 5000, 10000, 20000, 50000}) {
      const int64_t objects = std::max<int64_t>(50, n / 30);
      Case c{"nms", std::to_string(n) + " boxes (" + std::to_string(objects) + " objects), IoU 0.5",
             dtype, "torchvision", n >= 20000 ? 5 : 9, nullptr};
      c.prepare = [n, objects, dtype] {
        at::Tensor boxes, scores;
        proposals(n, objects, 2024, dtype, boxes, scores);
        Prepared p;
        p.reference = [=] { return call("torchvision::nms", {boxes, scores, 0.5}); };
        p.ours = [=] { return call("opmatrix::nms", {boxes, scores, 0.5}); };
        p.compare = [](const at::Tensor& ref, const at::Tensor& ours, bool& ok) {
          ok = ours.equal(ref);
          return std::string(ok ? "indices equal" : "INDICES DIFFER") + " (kept " +
              std::to_string(ours.numel()) + ")";
        };
        return p;
      };
      cases.push_back(c);
    }
  }
  return cases;
}

}  // namespace opmatrix_bench
