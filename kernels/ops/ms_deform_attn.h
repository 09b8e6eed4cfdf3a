// C++ entry points of opmatrix::ms_deform_attn, Deformable-DETR's
// MultiScaleDeformableAttention. They go through the dispatcher.
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <tuple>

namespace opmatrix {

// value [N, S, M, D] (S = sum of H_l * W_l), spatial_shapes [L, 2] int64 (H_l, W_l),
// level_start_index [L] int64, sampling_loc [N, Lq, M, L, P, 2] as (x, y) in [0, 1],
// attn_weight [N, Lq, M, L, P]  ->  [N, Lq, M * D].
// Sampling is bilinear with zero padding, align_corners=False (pixel centres at
// (i + 0.5) / size), as F.grid_sample in Deformable-DETR's PyTorch composite.
// im2col_step is Deformable-DETR's batch chunking knob: validated (> 0), and only a
// performance hint here.
at::Tensor ms_deform_attn(
    const at::Tensor& value, const at::Tensor& spatial_shapes,
    const at::Tensor& level_start_index, const at::Tensor& sampling_loc,
    const at::Tensor& attn_weight, int64_t im2col_step);

namespace detail {

// (grad_value, grad_sampling_loc, grad_attn_weight)
std::tuple<at::Tensor, at::Tensor, at::Tensor> _ms_deform_attn_backward(
    const at::Tensor& grad_output, const at::Tensor& value, const at::Tensor& spatial_shapes,
    const at::Tensor& level_start_index, const at::Tensor& sampling_loc,
    const at::Tensor& attn_weight, int64_t im2col_step);

}  // namespace detail
}  // namespace opmatrix
