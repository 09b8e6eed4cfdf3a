// boxops: a small op library of our own making, used to show opmatrix checking a project
// that is not opmatrix's kernels/ (docs/projects.md). Two ops on [N, 4] (x1, y1, x2, y2) boxes:
//   boxops::box_area(Tensor boxes) -> Tensor           [N]
//   boxops::box_iou(Tensor a, Tensor b) -> Tensor      [N, M]
#include <torch/library.h>

TORCH_LIBRARY(boxops, m) {
  m.def("box_area(Tensor boxes) -> Tensor");
  m.def("box_iou(Tensor a, Tensor b) -> Tensor");
}
