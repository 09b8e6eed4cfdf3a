// Deformable-DETR's ms_deform_attn_core_pytorch, line by line in ATen:
//   value_l  [N, H*W, M, D] -> [N*M, D, H, W]
//   grid_l   2 * loc[:, :, :, l] - 1 -> [N*M, Lq, P, 2]
//   samples  grid_sample(value_l, grid_l, bilinear, zeros, align_corners=False) [N*M, D, Lq, P]
//   output   sum over (L, P) of samples * attn -> [N, Lq, M*D]
#include "reference/ms_deform_attn.h"

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>

#include <sstream>

namespace opmatrix::reference {

std::string MsDeformAttnConfig::describe() const {
  std::ostringstream s;
  s << "N=" << batch << " levels=";
  for (const auto& [h, w] : levels) s << h << "x" << w << ",";
  s << " M=" << heads << " D=" << channels << " Lq=" << queries << " P=" << points
    << " loc_spread=" << loc_spread;
  return s.str();
}

MsDeformAttnInputs makeMsDeformAttnInputs(const MsDeformAttnConfig& c, at::ScalarType dtype,
                                          uint64_t seed) {
  auto gen = at::make_generator<at::CPUGeneratorImpl>(seed);
  const auto opts = at::TensorOptions().dtype(dtype);
  const int64_t L = static_cast<int64_t>(c.levels.size());
  std::vector<int64_t> shapes, starts;
  int64_t S = 0;
  for (const auto& [h, w] : c.levels) {
    shapes.push_back(h);
    shapes.push_back(w);
    starts.push_back(S);
    S += h * w;
  }
  MsDeformAttnInputs in;
  in.spatial_shapes = at::tensor(shapes, at::kLong).view({L, 2});
  in.level_start_index = at::tensor(starts, at::kLong);
  in.value = at::randn({c.batch, S, c.heads, c.channels}, gen, opts);
  in.sampling_loc = at::rand({c.batch, c.queries, c.heads, L, c.points, 2}, gen, opts) *
                        (1 + 2 * c.loc_spread) - c.loc_spread;
  const at::Tensor a = at::rand({c.batch, c.queries, c.heads, L, c.points}, gen, opts) + 0.05;
  in.attn_weight = a / a.sum({3, 4}, /*keepdim=*/true);
  return in;
}

at::Tensor msDeformAttn(const at::Tensor& value, const at::Tensor& spatial_shapes,
                        const at::Tensor& sampling_loc, const at::Tensor& attn_weight) {
  const int64_t N = value.size(0), M = value.size(2), D = value.size(3);
  const int64_t Lq = sampling_loc.size(1), L = sampling_loc.size(3), P = sampling_loc.size(4);
  const at::Tensor shapes = spatial_shapes.to(at::kCPU).contiguous();
  const at::Tensor grids = sampling_loc * 2 - 1;
  std::vector<at::Tensor> samples;
  int64_t start = 0;
  for (int64_t l = 0; l < L; ++l) {
    const int64_t H = shapes[l][0].item<int64_t>(), W = shapes[l][1].item<int64_t>();
    const at::Tensor value_l =
        value.narrow(1, start, H * W).flatten(2).transpose(1, 2).reshape({N * M, D, H, W});
    start += H * W;
    const at::Tensor grid_l = grids.select(3, l).transpose(1, 2).flatten(0, 1);  // [N*M, Lq, P, 2]
    samples.push_back(at::grid_sampler_2d(value_l, grid_l, /*interpolation_mode=*/0,
                                          /*padding_mode=*/0, /*align_corners=*/false));
  }
  const at::Tensor attn = attn_weight.transpose(1, 2).reshape({N * M, 1, Lq, L * P});
  const at::Tensor out = (at::stack(samples, -2).flatten(-2) * attn).sum(-1).view({N, M * D, Lq});
  return out.transpose(1, 2).contiguous();
}

}  // namespace opmatrix::reference
