// The kernel speed sweep: each op's shapes, taken from real models, timed for the opmatrix
// kernel and its reference (torchvision's kernel, or Deformable-DETR's grid_sample composite
// for ms_deform_attn) side by side in one process, at each thread count.
#pragma once

#include <ATen/ATen.h>

#include <functional>
#include <string>
#include <vector>

namespace opmatrix_bench {

// What a case computes once its inputs exist: the reference, ours, and the comparison of the
// two results ("equal", "max|diff| 0", …; ok = within what the cases accept).
struct Prepared {
  std::function<at::Tensor()> reference, ours;
  std::function<std::string(const at::Tensor& reference, const at::Tensor& ours, bool& ok)> compare;
};

struct Case {
  std::string op;         // nms, roi_align, deform_conv2d, ms_deform_attn
  std::string shape;      // where the shape comes from and its sizes
  at::ScalarType dtype;
  std::string reference;  // torchvision | composite
  int reps;               // timed runs per side (after one warm-up each)
  std::function<Prepared()> prepare;  // builds the inputs (only when the case runs)
};

// Cases of each op (sweep/<op>.cpp).
std::vector<Case> nms_cases();
std::vector<Case> roi_align_cases();
std::vector<Case> deform_conv2d_cases();
std::vector<Case> ms_deform_attn_cases();

// Helpers the case files share (sweep/common.cpp).
at::Tensor call(const std::string& qualified, std::vector<c10::IValue> args);
// Detector-like proposals: `objects` objects in an 800 x 1088 image, many jittered candidate
// boxes each (as an RPN emits), sides 16-256 px; scores uniform in [0, 1).
void proposals(int64_t n, int64_t objects, uint64_t seed, at::ScalarType dtype, at::Tensor& boxes,
               at::Tensor& scores);
std::string format(const char* fmt, double value);
// A comparison by at::allclose(ours, reference, tol, tol * (1 + max|reference|)), the cases'
// rule, reported as the max |difference|.
std::function<std::string(const at::Tensor&, const at::Tensor&, bool&)> close_within(double tol);

}  // namespace opmatrix_bench
