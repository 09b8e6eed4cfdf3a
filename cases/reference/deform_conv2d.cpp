// Reference deform_conv2d from the definition (Deformable ConvNets v2):
//   out[n, o, p] = bias[o] + sum_{c in group(o), k} W[o, c, k] * mask[n, og(c), k, p]
//                  * bilinear(input[n, c], p_base(p) + tap(k) + offset[n, og(c), k, p])
// with zero padding outside the image. Sampling is a gather of the four corners with
// validity masks; the contraction is an einsum per group.
#include "reference/deform_conv2d.h"

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>

#include <sstream>
#include <vector>

namespace opmatrix::reference {

std::string DeformConv2dConfig::describe() const {
  std::ostringstream s;
  s << "N=" << batch << " C=" << in_channels << "->" << out_channels << " " << in_h << "x" << in_w
    << " k=" << kernel_h << "x" << kernel_w << " stride=" << stride_h << "," << stride_w
    << " pad=" << pad_h << "," << pad_w << " dil=" << dilation_h << "," << dilation_w
    << " groups=" << groups << " offset_groups=" << offset_groups << " mask=" << use_mask
    << " offset_scale=" << offset_scale;
  return s.str();
}

DeformConv2dInputs makeDeformConv2dInputs(const DeformConv2dConfig& c, at::ScalarType dtype,
                                          uint64_t seed) {
  auto gen = at::make_generator<at::CPUGeneratorImpl>(seed);
  const auto opts = at::TensorOptions().dtype(dtype);
  const int64_t taps = c.kernel_h * c.kernel_w;
  DeformConv2dInputs in;
  in.input = at::randn({c.batch, c.in_channels, c.in_h, c.in_w}, gen, opts);
  in.weight = at::randn({c.out_channels, c.in_channels / c.groups, c.kernel_h, c.kernel_w}, gen, opts);
  in.offset = (at::rand({c.batch, 2 * c.offset_groups * taps, c.outH(), c.outW()}, gen, opts) * 2 - 1) *
              c.offset_scale;
  in.mask = c.use_mask ? at::rand({c.batch, c.offset_groups * taps, c.outH(), c.outW()}, gen, opts)
                       : at::zeros({c.batch, 0}, opts);
  in.bias = at::randn({c.out_channels}, gen, opts);
  return in;
}

namespace {

// Zero-padded bilinear samples of planes [N, Cg, H, W] at points (y, x) [N, P] -> [N, Cg, P].
at::Tensor bilinearGather(const at::Tensor& planes, const at::Tensor& y, const at::Tensor& x) {
  const int64_t N = planes.size(0), Cg = planes.size(1), H = planes.size(2), W = planes.size(3);
  const int64_t P = y.size(1);
  const at::Tensor flat = planes.reshape({N, Cg, H * W});
  const at::Tensor inside = (y > -1) & (y < H) & (x > -1) & (x < W);
  const at::Tensor y0 = y.floor(), x0 = x.floor();
  const at::Tensor ly = y - y0, lx = x - x0;
  at::Tensor out = at::zeros({N, Cg, P}, planes.options());
  if (H * W == 0) return out;
  for (int dy = 0; dy <= 1; ++dy) {
    for (int dx = 0; dx <= 1; ++dx) {
      const at::Tensor yy = y0 + dy, xx = x0 + dx;
      const at::Tensor valid = inside & (yy >= 0) & (yy <= H - 1) & (xx >= 0) & (xx <= W - 1);
      const at::Tensor weight = (dy ? ly : 1 - ly) * (dx ? lx : 1 - lx) * valid.to(planes.scalar_type());
      const at::Tensor index = (yy.clamp(0, H - 1) * W + xx.clamp(0, W - 1)).to(at::kLong);
      const at::Tensor values = flat.gather(2, index.unsqueeze(1).expand({N, Cg, P}));
      out = out + weight.unsqueeze(1) * values;
    }
  }
  return out;
}

}  // namespace

at::Tensor deformConv2d(const DeformConv2dInputs& in, const DeformConv2dConfig& c) {
  const int64_t N = c.batch, C = c.in_channels, K = c.kernel_h * c.kernel_w;
  const int64_t OH = c.outH(), OW = c.outW(), P = OH * OW;
  const int64_t cpg = C / c.offset_groups;
  const auto opts = in.input.options();
  // Base sampling grid of each output position, before taps and offsets.
  const at::Tensor base_y = (at::arange(OH, opts) * c.stride_h - c.pad_h).view({OH, 1}).expand({OH, OW}).reshape({1, P});
  const at::Tensor base_x = (at::arange(OW, opts) * c.stride_w - c.pad_w).view({1, OW}).expand({OH, OW}).reshape({1, P});

  std::vector<at::Tensor> per_group;  // offset group -> [N, cpg, K, P]
  for (int64_t og = 0; og < c.offset_groups; ++og) {
    const at::Tensor planes = in.input.narrow(1, og * cpg, cpg);
    std::vector<at::Tensor> taps;
    for (int64_t k = 0; k < K; ++k) {
      const int64_t ki = k / c.kernel_w, kj = k % c.kernel_w;
      const at::Tensor dy = in.offset.select(1, og * 2 * K + 2 * k).reshape({N, P});
      const at::Tensor dx = in.offset.select(1, og * 2 * K + 2 * k + 1).reshape({N, P});
      at::Tensor sampled = bilinearGather(planes, base_y + ki * c.dilation_h + dy, base_x + kj * c.dilation_w + dx);
      if (c.use_mask) sampled = sampled * in.mask.select(1, og * K + k).reshape({N, 1, P});
      taps.push_back(sampled);
    }
    per_group.push_back(at::stack(taps, 2));
  }
  const at::Tensor columns = at::cat(per_group, 1);  // [N, C, K, P]

  const int64_t cin_g = C / c.groups, cout_g = c.out_channels / c.groups;
  std::vector<at::Tensor> outs;
  for (int64_t g = 0; g < c.groups; ++g) {
    const at::Tensor w = in.weight.narrow(0, g * cout_g, cout_g).reshape({cout_g, cin_g, K});
    outs.push_back(at::einsum("ock,nckp->nop", {w, columns.narrow(1, g * cin_g, cin_g)}));
  }
  return (at::cat(outs, 1) + in.bias.view({1, -1, 1})).reshape({N, c.out_channels, OH, OW});
}

}  // namespace opmatrix::reference
