// Independent reference for ms_deform_attn: Deformable-DETR's pure-PyTorch composite
// (ms_deform_attn_core_pytorch: one grid_sample per level, align_corners=False, zero
// padding), in ATen; also what bench/ compares against. Plus the inputs the cases share.
#pragma once

#include <ATen/core/Tensor.h>
#include <c10/core/ScalarType.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace opmatrix::reference {

struct MsDeformAttnConfig {
  int64_t batch = 2;
  std::vector<std::pair<int64_t, int64_t>> levels{{6, 5}, {3, 3}, {1, 2}};  // (H, W)
  int64_t heads = 2, channels = 3, queries = 7, points = 2;
  double loc_spread = 0.2;  // sampling_loc ~ U(-spread, 1 + spread): some samples fall outside
  std::string describe() const;
};

struct MsDeformAttnInputs {
  at::Tensor value, spatial_shapes, level_start_index, sampling_loc, attn_weight;
};

// Fixed-seed random inputs on the CPU; attention weights normalised over (L, P).
MsDeformAttnInputs makeMsDeformAttnInputs(const MsDeformAttnConfig& config, at::ScalarType dtype,
                                          uint64_t seed);

// The composite: value [N, S, M, D], spatial_shapes on the CPU -> [N, Lq, M * D].
at::Tensor msDeformAttn(const at::Tensor& value, const at::Tensor& spatial_shapes,
                        const at::Tensor& sampling_loc, const at::Tensor& attn_weight);

}  // namespace opmatrix::reference
