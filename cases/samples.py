"""Samples of opmatrix's own ops for the behaviour checks (opcheck, compile, export,
fake-device; scripts/cell/op_samples.py): samples(device) -> [(qualified name, args, kwargs)].
The edge cases the C++ cases use (empty inputs, float64, aligned or not, no mask, groups),
kept small: opcheck's test_aot_dispatch_dynamic and its gradchecks run on 2 cores in seconds.
The first sample of each op is the one compile and export run on."""
import torch


def rand(*shape, device, dtype=torch.float32, grad=False, seed=0):
    g = torch.Generator().manual_seed(seed)
    return torch.rand(*shape, generator=g, dtype=dtype).to(device).requires_grad_(grad)


def boxes(n, device, dtype=torch.float32, seed=0):
    xy = rand(n, 2, device="cpu", dtype=dtype, seed=seed) * 10
    wh = rand(n, 2, device="cpu", dtype=dtype, seed=seed + 1) * 5 + 0.5
    return torch.cat([xy, xy + wh], dim=1).to(device)


def overlapping(device):
    """8 boxes, the last 4 near-copies of the first 4: nms keeps some and drops some, so an
    output size taken from the input's (an upper bound) differs from the real one."""
    first = boxes(4, "cpu")
    return torch.cat([first, first + 0.1]).to(device)


def rois(k, batch, device, dtype=torch.float32):
    index = torch.arange(k, dtype=dtype).remainder(batch).unsqueeze(1)
    return torch.cat([index, boxes(k, "cpu", dtype, seed=10)], dim=1).to(device)


def nms(device):
    op = "opmatrix::nms"
    return [(op, (overlapping(device), rand(8, device=device, seed=3), 0.5), {}),
            (op, (boxes(6, device, torch.float64), rand(6, device=device, dtype=torch.float64, seed=4), 0.3), {}),
            (op, (boxes(0, device), rand(0, device=device), 0.5), {})]


def roi_align(device):
    op = "opmatrix::roi_align"
    out = []
    for dtype, grad, aligned in ((torch.float32, False, False), (torch.float32, True, True),
                                 (torch.float64, True, False)):
        x = rand(2, 3, 8, 8, device=device, dtype=dtype, grad=grad, seed=5)
        out.append((op, (x, rois(3, 2, device, dtype), 0.5, 2, 2, 2, aligned), {}))
    out.append((op, (rand(1, 3, 8, 8, device=device), rois(0, 1, device), 1.0, 2, 2, 0, False), {}))  # no rois
    return out


def deform_conv2d(device):
    op = "opmatrix::deform_conv2d"
    out = []
    # (in_channels, groups, offset_groups, use_mask, grad, dtype): 3x3 kernel, stride 1, pad 1 on 5x5
    for c, groups, offset_groups, use_mask, grad, dtype in ((2, 1, 1, True, False, torch.float32),
                                                             (2, 1, 1, True, True, torch.float64),
                                                             (4, 2, 2, False, False, torch.float32)):
        taps = 9
        x = rand(1, c, 5, 5, device=device, dtype=dtype, grad=grad, seed=6)
        w = rand(2, c // groups, 3, 3, device=device, dtype=dtype, grad=grad, seed=7)
        offset = (rand(1, 2 * offset_groups * taps, 5, 5, device=device, dtype=dtype, seed=8) - 0.5).requires_grad_(grad)
        mask = (rand(1, offset_groups * taps, 5, 5, device=device, dtype=dtype, grad=grad, seed=9) if use_mask
                else torch.zeros(1, 1, device=device, dtype=dtype))  # torchvision's placeholder
        bias = rand(2, device=device, dtype=dtype, grad=grad, seed=10)
        out.append((op, (x, w, offset, mask, bias, 1, 1, 1, 1, 1, 1, groups, offset_groups, use_mask), {}))
    return out


def ms_deform_attn(device):
    op = "opmatrix::ms_deform_attn"
    out = []
    shapes = torch.tensor([[4, 4], [2, 2]], dtype=torch.int64)
    starts = torch.tensor([0, 16], dtype=torch.int64)
    spatial = 16 + 4
    # (batch, heads, channels, queries, points, grad, dtype)
    for n, m, d, q, p, grad, dtype in ((1, 2, 4, 3, 2, False, torch.float32),
                                       (1, 1, 2, 2, 1, True, torch.float64),
                                       (0, 2, 4, 3, 2, False, torch.float32)):  # empty batch
        value = rand(n, spatial, m, d, device=device, dtype=dtype, grad=grad, seed=11)
        loc = rand(n, q, m, 2, p, 2, device=device, dtype=dtype, grad=grad, seed=12)
        weight = rand(n, q, m, 2, p, device=device, dtype=dtype, grad=grad, seed=13)
        out.append((op, (value, shapes.to(device), starts.to(device), loc, weight, 64), {}))
    return out


def samples(device):
    return nms(device) + roi_align(device) + deform_conv2d(device) + ms_deform_attn(device)
