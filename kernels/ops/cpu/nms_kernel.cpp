// CPU kernel of opmatrix::nms: greedy NMS, bit-for-bit the same decisions as torchvision's
// (same score order: stable descending sort; same IoU arithmetic in scalar_t; same strict
// `IoU > threshold`), but laid out for speed:
//  - boxes gathered once into score order, structure-of-arrays, so the inner loop is a
//    branch-free, vectorisable sweep (an AVX2 clone is picked at load time where available);
//  - blocked greedy: boxes are resolved B at a time; the boxes a block keeps then suppress
//    everything after the block in parallel (at::parallel_for), and the survivors are
//    compacted so that suppressed boxes are never tested again. A box is kept iff no kept box
//    of higher score overlaps it, so this is exactly the sequential greedy result.
#define TORCH_ASSERT_ONLY_METHOD_OPERATORS

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "ops/cpu/simd.h"
#include "ops/nms_check.h"
#include "ops/tensor_api.h"

namespace opmatrix {
namespace {

constexpr int64_t kBlock = 256;             // boxes resolved sequentially per step
constexpr int64_t kGrain = 2048;            // boxes per parallel work item when gathering
constexpr int64_t kPairsPerItem = 1 << 18;  // IoU tests per parallel work item in a sweep
constexpr int64_t kMinGrain = 256;          // fewest boxes per parallel work item in a sweep

// Largest value of T that is <= threshold, so that `iou > t` in T decides exactly like
// torchvision's `iou > (double)threshold` (a T above t is above threshold and vice versa).
template <typename T>
T threshold_in(double threshold) {
  T t = static_cast<T>(threshold);
  if (static_cast<double>(t) > threshold) t = std::nextafter(t, -std::numeric_limits<T>::infinity());
  return t;
}

template <typename T>
struct SortedBoxes {
  std::vector<T> x1, y1, x2, y2, area;
  std::vector<uint8_t> suppressed;
};

// suppressed[j] |= IoU(box i, box j) > t for j in [begin, end). Same expression order as
// torchvision (max/min, clamp at 0, inter / (area_i + area_j - inter)).
template <typename T>
OPMATRIX_ALWAYS_INLINE void suppress_range_impl(const SortedBoxes<T>& b, uint8_t* suppressed, int64_t i,
                                int64_t begin, int64_t end, T t) {
  const T ix1 = b.x1[i], iy1 = b.y1[i], ix2 = b.x2[i], iy2 = b.y2[i], iarea = b.area[i];
  const T* x1 = b.x1.data();
  const T* y1 = b.y1.data();
  const T* x2 = b.x2.data();
  const T* y2 = b.y2.data();
  const T* area = b.area.data();
  for (int64_t j = begin; j < end; ++j) {
    const T xx1 = std::max(ix1, x1[j]);
    const T yy1 = std::max(iy1, y1[j]);
    const T xx2 = std::min(ix2, x2[j]);
    const T yy2 = std::min(iy2, y2[j]);
    const T w = std::max(T(0), xx2 - xx1);
    const T h = std::max(T(0), yy2 - yy1);
    const T inter = w * h;
    const T ovr = inter / (iarea + area[j] - inter);
    suppressed[j] |= static_cast<uint8_t>(ovr > t);
  }
}

OPMATRIX_SIMD_CLONES void suppress_range(const SortedBoxes<float>& b, uint8_t* s, int64_t i,
                                         int64_t begin, int64_t end, float t) {
  suppress_range_impl(b, s, i, begin, end, t);
}
OPMATRIX_SIMD_CLONES void suppress_range(const SortedBoxes<double>& b, uint8_t* s, int64_t i,
                                         int64_t begin, int64_t end, double t) {
  suppress_range_impl(b, s, i, begin, end, t);
}

// Moves the boxes of [begin, end) that are not suppressed to the front of that range, in
// order, and clears their flags; returns the new end.
template <typename T>
int64_t compact(SortedBoxes<T>& b, std::vector<int64_t>& pos, int64_t begin, int64_t end) {
  int64_t out = begin;
  for (int64_t j = begin; j < end; ++j) {
    if (b.suppressed[j]) continue;
    b.x1[out] = b.x1[j];
    b.y1[out] = b.y1[j];
    b.x2[out] = b.x2[j];
    b.y2[out] = b.y2[j];
    b.area[out] = b.area[j];
    pos[out] = pos[j];
    b.suppressed[out] = 0;
    ++out;
  }
  return out;
}

template <typename T>
api::Tensor nms_cpu_impl(const api::Tensor& dets, const api::Tensor& scores, double iou_threshold) {
  const int64_t n = dets.size(0);
  const api::Tensor order = api::stable_descending_order(scores);
  const api::Tensor boxes = api::contiguous(dets);
  const T* box = api::data<T>(boxes);
  const int64_t* ord = api::data<int64_t>(order);

  SortedBoxes<T> b;
  for (auto* v : {&b.x1, &b.y1, &b.x2, &b.y2, &b.area}) v->resize(n);
  b.suppressed.assign(n, 0);
  std::vector<int64_t> pos(ord, ord + n);  // original index of each (compacted) box
  api::parallel_for(0, n, kGrain, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      const T* d = box + 4 * ord[i];
      b.x1[i] = d[0];
      b.y1[i] = d[1];
      b.x2[i] = d[2];
      b.y2[i] = d[3];
      b.area[i] = (d[2] - d[0]) * (d[3] - d[1]);
    }
  });

  const T t = threshold_in<T>(iou_threshold);
  api::Tensor keep = api::empty({n}, api::kLong, dets);
  int64_t* keep_out = api::data<int64_t>(keep);
  int64_t num_kept = 0;
  uint8_t* suppressed = b.suppressed.data();
  std::vector<int64_t> kept_in_block;
  kept_in_block.reserve(kBlock);

  // [b0, alive) holds the boxes not yet suppressed, in score order: after each block the
  // survivors behind it are compacted, so later sweeps skip every box already suppressed
  // (most of them, on detector output) instead of testing it again for each kept box.
  int64_t alive = n;
  for (int64_t b0 = 0; b0 < alive;) {
    const int64_t b1 = std::min(alive, b0 + kBlock);
    kept_in_block.clear();
    for (int64_t i = b0; i < b1; ++i) {
      if (suppressed[i]) continue;
      keep_out[num_kept++] = pos[i];
      kept_in_block.push_back(i);
      suppress_range(b, suppressed, i, i + 1, b1, t);
    }
    if (!kept_in_block.empty() && b1 < alive) {
      // Each work item is a run of boxes tested against every box kept in the block.
      const int64_t grain = std::max<int64_t>(kMinGrain, kPairsPerItem / static_cast<int64_t>(kept_in_block.size()));
      api::parallel_for(b1, alive, grain, [&](int64_t begin, int64_t end) {
        for (int64_t i : kept_in_block) suppress_range(b, suppressed, i, begin, end, t);
      });
    }
    alive = compact(b, pos, b1, alive);
    b0 = b1;
  }
  return api::narrow(keep, /*dim=*/0, /*start=*/0, /*length=*/num_kept);
}

api::Tensor nms_cpu(const api::Tensor& dets, const api::Tensor& scores, double iou_threshold) {
  OPMATRIX_CHECK(dets.is_cpu(), "dets must be a CPU tensor");
  OPMATRIX_CHECK(scores.is_cpu(), "scores must be a CPU tensor");
  nms_check(dets, scores);
  if (dets.numel() == 0) return api::empty({0}, api::kLong, dets);
  api::Tensor result;
  api::dispatch_floating(dets.scalar_type(), "opmatrix::nms_cpu", [&](auto tag) {
    result = nms_cpu_impl<decltype(tag)>(dets, scores, iou_threshold);
  });
  return result;
}

}  // namespace

OPMATRIX_LIBRARY_IMPL(CPU, m) {
  m.impl("nms", OPMATRIX_KERNEL(nms_cpu));
}

}  // namespace opmatrix
