"""Samples of torchvision's own C++ ops, modelled on torchvision's test/test_ops.py: small
inputs (opcheck's test_aot_dispatch_dynamic and gradchecks run in seconds on 2 cores), one
sample per op with inputs that require grad so test_autograd_registration means something."""
import torch

OPS = ["nms", "roi_align", "roi_pool", "ps_roi_align", "ps_roi_pool", "deform_conv2d"]


def boxes(n, device, dtype=torch.float32, seed=0):
    g = torch.Generator().manual_seed(seed)
    xy = torch.rand(n, 2, generator=g, dtype=dtype) * 10
    wh = torch.rand(n, 2, generator=g, dtype=dtype) * 5 + 0.5
    return torch.cat([xy, xy + wh], dim=1).to(device)


def overlapping(device):
    """8 boxes, the last 4 near-copies of the first 4: nms keeps some and drops some, so an
    output size taken from the input's (an upper bound) differs from the real one."""
    first = boxes(4, "cpu")
    return torch.cat([first, first + 0.1]).to(device)


def rois(k, batch, device, dtype=torch.float32, seed=1):
    index = torch.arange(k, dtype=dtype).remainder(batch).unsqueeze(1)
    return torch.cat([index, boxes(k, "cpu", dtype, seed)], dim=1).to(device)


def rand(*shape, device, dtype=torch.float32, grad=False, seed=2):
    g = torch.Generator().manual_seed(seed)
    return torch.rand(*shape, generator=g, dtype=dtype).to(device).requires_grad_(grad)


def samples(device):
    tv = "torchvision::"
    out = [
        (tv + "nms", (overlapping(device), rand(8, device=device), 0.5), {}),
        (tv + "nms", (boxes(0, device), rand(0, device=device), 0.5), {}),
    ]
    for grad in (False, True):
        x = rand(2, 4, 12, 12, device=device, grad=grad)
        r = rois(3, 2, device)
        out += [
            (tv + "roi_align", (x, r, 1.0, 2, 2, 2, grad), {}),
            (tv + "roi_pool", (x, r, 1.0, 2, 2), {}),
            (tv + "ps_roi_align", (x, r, 1.0, 2, 2, 2), {}),  # channels divisible by 2*2
            (tv + "ps_roi_pool", (x, r, 1.0, 2, 2), {}),
        ]
    # input [1,3,6,6], 3x3 kernel, stride 1, pad 1 -> out [1,2,6,6]; offset 2*3*3, mask 3*3 per pixel
    for grad, use_mask in ((False, True), (True, True), (False, False)):
        x = rand(1, 3, 6, 6, device=device, grad=grad, seed=3)
        w = rand(2, 3, 3, 3, device=device, grad=grad, seed=4)
        offset = (rand(1, 18, 6, 6, device=device, seed=5) - 0.5).requires_grad_(grad)
        # no mask: what torchvision.ops.deform_conv2d passes, a [batch, 1] placeholder
        mask = rand(1, 9, 6, 6, device=device, grad=grad, seed=6) if use_mask else torch.zeros(1, 1, device=device)
        bias = rand(2, device=device, grad=grad, seed=7)
        out.append((tv + "deform_conv2d", (x, w, offset, mask, bias, 1, 1, 1, 1, 1, 1, 1, 1, use_mask), {}))
    return out
