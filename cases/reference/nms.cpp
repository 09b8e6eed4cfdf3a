#include "reference/nms.h"

#include <ATen/ATen.h>

#include <vector>

namespace opmatrix::reference {

at::Tensor boxIou(const at::Tensor& boxes) {
  const at::Tensor b = boxes.cpu();
  const at::Tensor x1 = b.select(1, 0), y1 = b.select(1, 1), x2 = b.select(1, 2), y2 = b.select(1, 3);
  const at::Tensor area = (x2 - x1) * (y2 - y1);
  const at::Tensor w = (at::minimum(x2.unsqueeze(1), x2.unsqueeze(0)) -
                        at::maximum(x1.unsqueeze(1), x1.unsqueeze(0))).clamp_min(0);
  const at::Tensor h = (at::minimum(y2.unsqueeze(1), y2.unsqueeze(0)) -
                        at::maximum(y1.unsqueeze(1), y1.unsqueeze(0))).clamp_min(0);
  const at::Tensor inter = w * h;
  return inter / (area.unsqueeze(1) + area.unsqueeze(0) - inter);
}

at::Tensor nms(const at::Tensor& boxes, const at::Tensor& scores, double iou_threshold) {
  const int64_t n = boxes.size(0);
  if (n == 0) return at::empty({0}, at::kLong);
  // Ranks: descending score, ties by index (stable).
  const at::Tensor order = std::get<1>(scores.cpu().sort(/*stable=*/true, 0, /*descending=*/true));
  const at::Tensor suppresses = boxIou(boxes).to(at::kDouble).gt(iou_threshold);  // NaN -> false
  const auto sup = suppresses.accessor<bool, 2>();
  const auto ord = order.accessor<int64_t, 1>();
  std::vector<bool> removed(n, false);
  std::vector<int64_t> keep;
  for (int64_t r = 0; r < n; ++r) {
    const int64_t i = ord[r];
    if (removed[i]) continue;
    keep.push_back(i);
    for (int64_t s = r + 1; s < n; ++s) {
      const int64_t j = ord[s];
      if (sup[i][j]) removed[j] = true;
    }
  }
  return at::tensor(keep, at::kLong);
}

}  // namespace opmatrix::reference
