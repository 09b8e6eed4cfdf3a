// ms_deform_attn forward against Deformable-DETR's pure-PyTorch composite
// (ms_deform_attn_core_pytorch: one grid_sample per level), at Deformable-DETR's level sizes
// for an 800 x 1088 image (100x136, 50x68, 25x34, 13x17; M=8 heads, D=32, P=4): the encoder
// (every pixel a query, batch 1), the decoder (300 queries, batch 2 and 8), and a 512-px
// input's levels with 1000 queries.
#include <ATen/CPUGeneratorImpl.h>

#include "sweep.h"

namespace opmatrix_bench {
namespace {

struct Shape {
  std::string name;
  int64_t batch;
  std::vector<int64_t> levels;  // H0, W0, H1, W1, …
  int64_t queries;              // 0: one per pixel of all levels (the encoder)
};

// Deformable-DETR's ms_deform_attn_core_pytorch, in ATen (as cases/reference/ms_deform_attn.cpp).
at::Tensor composite(const at::Tensor& value, const std::vector<int64_t>& hw, const at::Tensor& loc,
                     const at::Tensor& attn) {
  const int64_t N = value.size(0), M = value.size(2), D = value.size(3);
  const int64_t Lq = loc.size(1), L = loc.size(3), P = loc.size(4);
  const at::Tensor grids = loc * 2 - 1;
  std::vector<at::Tensor> samples;
  int64_t start = 0;
  for (int64_t l = 0; l < L; ++l) {
    const int64_t H = hw[2 * l], W = hw[2 * l + 1];
    const at::Tensor v =
        value.narrow(1, start, H * W).flatten(2).transpose(1, 2).reshape({N * M, D, H, W});
    start += H * W;
    samples.push_back(
        at::grid_sampler_2d(v, grids.select(3, l).transpose(1, 2).flatten(0, 1), 0, 0, false));
  }
  const at::Tensor a = attn.transpose(1, 2).reshape({N * M, 1, Lq, L * P});
  return (at::stack(samples, -2).flatten(-2) * a).sum(-1).view({N, M * D, Lq}).transpose(1, 2).contiguous();
}

}  // namespace

std::vector<Case> ms_deform_attn_cases() {
  const std::vector<int64_t> detr{100, 136, 50, 68, 25, 34, 13, 17};
  const std::vector<Shape> shapes{
      {"DETR encoder, 800x1088", 1, detr, 0},
      {"DETR decoder, 800x1088", 2, detr, 300},
      {"DETR decoder, 800x1088", 8, detr, 300},
      {"512 px levels, 1000 queries", 2, {64, 64, 32, 32, 16, 16, 8, 8}, 1000},
  };
  const int64_t M = 8, D = 32, P = 4;
  std::vector<Case> cases;
  for (at::ScalarType dtype : {at::kFloat, at::kDouble}) {
    for (const Shape& s : shapes) {
      const int64_t L = static_cast<int64_t>(s.levels.size()) / 2;
      int64_t S = 0;
      std::vector<int64_t> starts;
      for (int64_t l = 0; l < L; ++l) {
        starts.push_back(S);
        S += s.levels[2 * l] * s.levels[2 * l + 1];
      }
      const int64_t Lq = s.queries > 0 ? s.queries : S;
      const std::string label = s.name + ": N=" + std::to_string(s.batch) + " S=" +
          std::to_string(S) + " Lq=" + std::to_string(Lq) + " M=8 D=32 L=" + std::to_string(L) + " P=4";
      Case c{"ms_deform_attn", label, dtype, "composite", s.queries > 0 ? 5 : 2, nullptr};
      c.prepare = [=] {
        auto gen = at::make_generator<at::CPUGeneratorImpl>(1);
        const auto o = at::TensorOptions().dtype(dtype);
        const at::Tensor value = at::randn({s.batch, S, M, D}, gen, o);
        const at::Tensor shapes_t = at::tensor(s.levels, at::kLong).view({L, 2});
        const at::Tensor starts_t = at::tensor(starts, at::kLong);
        const at::Tensor loc = at::rand({s.batch, Lq, M, L, P, 2}, gen, o);
        at::Tensor attn = at::rand({s.batch, Lq, M, L, P}, gen, o);
        attn = attn / attn.sum({3, 4}, true);
        const std::vector<int64_t> levels = s.levels;
        Prepared p;
        p.reference = [=] { return composite(value, levels, loc, attn); };
        p.ours = [=] {
          return call("opmatrix::ms_deform_attn", {value, shapes_t, starts_t, loc, attn, int64_t(64)});
        };
        p.compare = close_within(dtype == at::kDouble ? 1e-10 : 1e-5);  // the correctness cases' tolerance
        return p;
      };
      cases.push_back(c);
    }
  }
  return cases;
}

}  // namespace opmatrix_bench
