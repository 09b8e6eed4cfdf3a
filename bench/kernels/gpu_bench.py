#!/usr/bin/env python3
"""GPU benchmark of the opmatrix CUDA kernels against torchvision's CUDA kernels.

The GPU counterpart of kernel_sweep (the CPU sweep): the shapes of the CPU benchmarks it
replaced, plus detection shapes (FPN P2-P5 of an 800 x 1088 image, RPN-sized nms,
DCNv2 ResNet-50 stages, Deformable-DETR's encoder and decoder at their real level sizes).
Both sides are called as dispatcher ops (torch.ops.opmatrix.X / torch.ops.torchvision.X), so
neither pays torchvision.ops' Python argument handling; ms_deform_attn has no torchvision op
and is compared with Deformable-DETR's grid_sample composite (ms_deform_attn_core_pytorch).

Results are compared before anything is timed: nms indices must be identical, roi_align is
reported as max |diff|, deform_conv2d must be within the cases' float tolerance
(cases/correctness/deform_conv2d_correctness.cpp: rtol 1e-4, atol 1e-4 * (1 + max|ref|)),
ms_deform_attn within max relative difference 1e-4. Exit status 1
if any result differs.

Timing: CUDA events around each call after warm-up, the two sides alternating, median of
--reps. ratio = ours / reference (< 1: ours is faster).

usage: gpu_bench.py [--ops build/kernels/libopmatrix_ops.so] [--reps 25] [--warmup 5]
                    [--markdown table.md] [--json results.json]
"""
import argparse
import json
import statistics
import sys

import torch
import torchvision  # noqa: F401  (registers torch.ops.torchvision.*)


def parse_args():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--ops", default="build/kernels/libopmatrix_ops.so", help="libopmatrix_ops.so built with CUDA")
    p.add_argument("--reps", type=int, default=25)
    p.add_argument("--warmup", type=int, default=5)
    p.add_argument("--markdown", help="also write the table (Markdown) here")
    p.add_argument("--json", help="also write every row (JSON) here")
    return p.parse_args()


def median_ms(a, b, reps, warmup):
    """Median CUDA-event times (ms) of a() and b(), alternating a, b, a, b, ..."""
    for _ in range(warmup):
        a()
        b()
    torch.cuda.synchronize()
    ta, tb = [], []
    for _ in range(reps):
        for f, out in ((a, ta), (b, tb)):
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            f()
            end.record()
            end.synchronize()
            out.append(start.elapsed_time(end))
    return statistics.median(ta), statistics.median(tb)


def proposals(n, objects, gen, dev):
    """Detector-like proposals in an 800 x 1088 image (as bench/kernels/sweep/common.cpp): many jittered
    candidates per object, sides 16-256 px. Scores are distinct (a permutation): torchvision's
    CUDA nms sorts unstably, ours stably, so tied scores could order tied boxes differently and
    make equal kernels look different."""
    centre = torch.rand(objects, 2, generator=gen) * torch.tensor([1088.0, 800.0])
    size = 16 + torch.rand(objects, 2, generator=gen) * 240
    pick = torch.randint(objects, (n,), generator=gen)
    c = centre[pick] + torch.randn(n, 2, generator=gen) * size[pick] * 0.15
    s = size[pick] * (0.8 + 0.4 * torch.rand(n, 2, generator=gen))
    boxes = torch.cat([c - s / 2, c + s / 2], 1).contiguous()
    scores = (torch.randperm(n, generator=gen).float() + 0.5) / n
    return boxes.to(dev), scores.to(dev)


def rois_for(n, batch, gen, dev):
    b, _ = proposals(n, n, gen, "cpu")
    idx = torch.randint(batch, (n, 1), generator=gen).float()
    return torch.cat([idx, b], 1).contiguous().to(dev)


def ms_deform_attn_composite(value, hw, loc, attn):
    """Deformable-DETR's ms_deform_attn_core_pytorch (cases/reference/ms_deform_attn.cpp)."""
    N, _, M, D = value.shape
    _, Lq, _, L, P, _ = loc.shape
    grids = loc * 2 - 1
    samples = []
    start = 0
    for l, (H, W) in enumerate(hw):
        v = value[:, start:start + H * W].flatten(2).transpose(1, 2).reshape(N * M, D, H, W)
        start += H * W
        g = grids[:, :, :, l].transpose(1, 2).flatten(0, 1)
        samples.append(torch.nn.functional.grid_sample(v, g, mode="bilinear", padding_mode="zeros",
                                                       align_corners=False))
    a = attn.transpose(1, 2).reshape(N * M, 1, Lq, L * P)
    return (torch.stack(samples, -2).flatten(-2) * a).sum(-1).view(N, M * D, Lq).transpose(1, 2).contiguous()


class Bench:
    def __init__(self, reps, warmup):
        self.reps, self.warmup = reps, warmup
        self.rows = []
        self.ok = True

    def row(self, op, shape, ref_name, ours, ref, check, passed):
        t_ref, t_ours = median_ms(ref, ours, self.reps, self.warmup)
        r = dict(op=op, shape=shape, reference=ref_name, ref_ms=t_ref, ours_ms=t_ours,
                 ratio=t_ours / t_ref, check=check, passed=passed)
        self.ok &= passed
        self.rows.append(r)
        print(f"{op:28s} {shape:62s} {ref_name:12s} {t_ref:9.3f} ms  ours {t_ours:9.3f} ms  "
              f"ratio {r['ratio']:.2f}  {check}{'' if passed else '  DIFFERENT'}", flush=True)

    def markdown(self):
        lines = ["| op | shape | reference | reference ms | ours ms | ours / ref | check |",
                 "|---|---|---|---:|---:|---:|---|"]
        for r in self.rows:
            check = r["check"] + ("" if r["passed"] else " **DIFFERENT**")
            lines.append(f"| {r['op']} | {r['shape']} | {r['reference']} | {r['ref_ms']:.3f} | "
                         f"{r['ours_ms']:.3f} | {r['ratio']:.2f} | {check} |")
        return "\n".join(lines)


def bench_nms(b, gen, dev):
    tv, ours = torch.ops.torchvision.nms, torch.ops.opmatrix.nms
    for n, objects in ((1000, 100), (10000, 300), (50000, 1000)):
        boxes, scores = proposals(n, objects, gen, dev)
        k_tv, k_ours = tv(boxes, scores, 0.5), ours(boxes, scores, 0.5)
        equal = torch.equal(k_tv, k_ours)
        b.row("nms", f"{n} boxes, IoU 0.5 (kept {k_ours.numel()})", "torchvision",
              lambda: ours(boxes, scores, 0.5), lambda: tv(boxes, scores, 0.5),
              "indices equal" if equal else f"kept {k_ours.numel()} vs {k_tv.numel()}", equal)


def bench_roi_align(b, gen, dev):
    tv, ours = torch.ops.torchvision.roi_align, torch.ops.opmatrix.roi_align
    tv_bw, ours_bw = torch.ops.torchvision._roi_align_backward, torch.ops.opmatrix._roi_align_backward
    # The CPU bench's shape (P2, batch 2), then FPN P2-P5 of an 800 x 1088 image, 1000 rois each.
    levels = [("P2", 200, 272, 0.25), ("P3", 100, 136, 0.125), ("P4", 50, 68, 0.0625), ("P5", 25, 34, 0.03125)]
    rois = rois_for(1000, 2, gen, dev)
    for name, H, W, scale in levels:
        x = torch.randn(2, 256, H, W, generator=gen).to(dev)
        args = (rois, scale, 7, 7, 2, True)
        o_tv, o_ours = tv(x, *args), ours(x, *args)
        diff = (o_tv - o_ours).abs().max().item()
        b.row("roi_align fwd", f"{name} 2x256x{H}x{W}, 1000 rois, 7x7, sr 2, aligned", "torchvision",
              lambda: ours(x, *args), lambda: tv(x, *args), f"max abs diff {diff:.2g}", diff <= 1e-5)
        grad = torch.randn(o_tv.shape, generator=gen).to(dev)
        bargs = (rois, scale, 7, 7, 2, 256, H, W, 2, True)
        g_tv, g_ours = tv_bw(grad, *bargs), ours_bw(grad, *bargs)
        bdiff = (g_tv - g_ours).abs().max().item()
        # Both scatter with atomics in arbitrary order: equal up to float rounding.
        b.row("roi_align bwd", f"{name} (same shapes)", "torchvision",
              lambda: ours_bw(grad, *bargs), lambda: tv_bw(grad, *bargs),
              f"max abs diff {bdiff:.2g}", bdiff <= 1e-4 * (1 + g_tv.abs().max().item()))
        del x, grad


def dcn_inputs(N, C, Co, H, W, stride, gen, dev):
    k = 3
    Ho, Wo = (H + 2 - k) // stride + 1, (W + 2 - k) // stride + 1
    return dict(
        input=torch.randn(N, C, H, W, generator=gen).to(dev),
        weight=(torch.randn(Co, C, k, k, generator=gen) * (2.0 / (C * k * k)) ** 0.5).to(dev),
        offset=(torch.randn(N, 2 * k * k, Ho, Wo, generator=gen) * 2).to(dev),
        mask=torch.rand(N, k * k, Ho, Wo, generator=gen).to(dev),
        bias=torch.randn(Co, generator=gen).to(dev),
        stride=stride)


def bench_deform_conv2d(b, gen, dev):
    tv, ours = torch.ops.torchvision.deform_conv2d, torch.ops.opmatrix.deform_conv2d
    tv_bw, ours_bw = torch.ops.torchvision._deform_conv2d_backward, torch.ops.opmatrix._deform_conv2d_backward

    def call(op, d, grad=None):
        s = d["stride"]
        head = (d["input"], d["weight"], d["offset"], d["mask"], d["bias"])
        if grad is not None:
            head = (grad,) + head
        return op(*head, s, s, 1, 1, 1, 1, 1, 1, True)

    def close(a, ref):
        atol = 1e-4 * (1 + ref.abs().max().item())
        return torch.allclose(a, ref, rtol=1e-4, atol=atol), (a - ref).abs().max().item()

    # The CPU bench's shape, then DCNv2 ResNet-50 stages c3-c5 (the 3x3 conv of a block,
    # stride 1) at an 800 x 1088 input, batch 1 and 8.
    shapes = [("CPU-bench shape", 2, 256, 32, 32, True)]
    for N in (1, 8):
        shapes += [(f"R50 c3 b{N}", N, 128, 100, 136, N == 8), (f"R50 c4 b{N}", N, 256, 50, 68, N == 8),
                   (f"R50 c5 b{N}", N, 512, 25, 34, False)]
    for name, N, C, H, W, with_bw in shapes:
        d = dcn_inputs(N, C, C, H, W, 1, gen, dev)
        o_tv, o_ours = call(tv, d), call(ours, d)
        ok, diff = close(o_ours, o_tv)
        b.row("deform_conv2d fwd", f"{name}: {N}x{C}x{H}x{W} -> {C}, 3x3 pad 1, mask", "torchvision",
              lambda: call(ours, d), lambda: call(tv, d), f"max abs diff {diff:.2g}", ok)
        if with_bw:
            grad = torch.randn(o_tv.shape, generator=gen).to(dev)
            g_tv, g_ours = call(tv_bw, d, grad), call(ours_bw, d, grad)
            names = ("input", "weight", "offset", "mask", "bias")
            results = [close(a, r) for a, r in zip(g_ours, g_tv)]
            bok = all(r[0] for r in results)
            worst = max(range(5), key=lambda i: results[i][1] / (1 + g_tv[i].abs().max().item()))
            b.row("deform_conv2d bwd", f"{name} (all five grads)", "torchvision",
                  lambda: call(ours_bw, d, grad), lambda: call(tv_bw, d, grad),
                  f"worst grad_{names[worst]} max abs diff {results[worst][1]:.2g}", bok)
            del grad
        del d


def bench_ms_deform_attn(b, gen, dev):
    ours = torch.ops.opmatrix.ms_deform_attn

    def inputs(N, hw, M, D, Lq, P):
        S = sum(h * w for h, w in hw)
        starts = [0]
        for h, w in hw[:-1]:
            starts.append(starts[-1] + h * w)
        value = torch.randn(N, S, M, D, generator=gen).to(dev)
        shapes = torch.tensor(hw, dtype=torch.long, device=dev)
        lsi = torch.tensor(starts, dtype=torch.long, device=dev)
        loc = torch.rand(N, Lq, M, len(hw), P, 2, generator=gen).to(dev)
        attn = torch.rand(N, Lq, M, len(hw), P, generator=gen).to(dev)
        attn = attn / attn.sum((3, 4), keepdim=True)
        return value, shapes, lsi, loc, attn, S

    # The CPU bench's shape; then Deformable-DETR at an 800 x 1088 input: levels of stride
    # 8/16/32/64, encoder queries = every pixel of every level, decoder 300 queries.
    detr = [(100, 136), (50, 68), (25, 34), (13, 17)]
    configs = [("CPU-bench shape", 2, [(64, 64), (32, 32), (16, 16), (8, 8)], 1000),
               ("DETR encoder", 2, detr, None), ("DETR decoder", 2, detr, 300)]
    for name, N, hw, Lq in configs:
        S = sum(h * w for h, w in hw)
        value, shapes, lsi, loc, attn, S = inputs(N, hw, 8, 32, Lq or S, 4)
        o = ours(value, shapes, lsi, loc, attn, 64)
        ref = ms_deform_attn_composite(value, hw, loc, attn)
        rel = ((o - ref).abs().max() / ref.abs().max()).item()
        levels = "/".join(f"{h}x{w}" for h, w in hw)
        b.row("ms_deform_attn fwd", f"{name}: N={N} {levels} (S={S}) M=8 D=32 Lq={loc.shape[1]} P=4",
              "composite", lambda: ours(value, shapes, lsi, loc, attn, 64),
              lambda: ms_deform_attn_composite(value, hw, loc, attn), f"max rel diff {rel:.1e}", rel < 1e-4)


def main():
    args = parse_args()
    if not torch.cuda.is_available():
        print("no CUDA device visible", file=sys.stderr)
        return 2
    torch.ops.load_library(args.ops)
    dev = torch.device("cuda")
    props = torch.cuda.get_device_properties(dev)
    header = (f"device: {props.name} ({props.multi_processor_count} SMs, "
              f"{props.total_memory / 2**30:.0f} GiB); torch {torch.__version__} (CUDA {torch.version.cuda}); "
              f"torchvision {torchvision.__version__}; float32; CUDA-event medians of {args.reps} runs "
              f"after {args.warmup} warm-ups, sides alternating; TF32 matmul "
              f"{'on' if torch.backends.cuda.matmul.allow_tf32 else 'off'}")
    print(header, flush=True)
    b = Bench(args.reps, args.warmup)
    gen = torch.Generator().manual_seed(2024)
    with torch.no_grad():
        bench_nms(b, gen, dev)
        bench_roi_align(b, gen, dev)
        bench_deform_conv2d(b, gen, dev)
        bench_ms_deform_attn(b, gen, dev)
    table = b.markdown()
    print()
    print(table)
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(header + "\n\n" + table + "\n")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(dict(header=header, rows=b.rows), f, indent=1)
    if not b.ok:
        print("SOME RESULTS DIFFER", file=sys.stderr)
    return 0 if b.ok else 1


if __name__ == "__main__":
    sys.exit(main())
