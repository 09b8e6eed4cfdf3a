"""Samples of boxops's ops for opmatrix's behaviour checks (opcheck, compile, export,
fake-device): samples(device) -> [(qualified name, args, kwargs)]. Edge cases from smoke.py:
no boxes, float64, empty or inverted boxes. The first sample of each op is the one compile and
export run on."""
import torch


def boxes(n, device, dtype=torch.float32, seed=0):
    g = torch.Generator().manual_seed(seed)
    xy = torch.rand(n, 2, generator=g, dtype=dtype) * 100
    wh = torch.rand(n, 2, generator=g, dtype=dtype) * 30 - 2  # some empty / inverted boxes
    return torch.cat([xy, xy + wh], dim=1).to(device)


def samples(device):
    out = []
    for n, m, dtype in ((5, 3, torch.float32), (4, 2, torch.float64), (0, 3, torch.float32)):
        a, b = boxes(n, device, dtype, seed=n), boxes(m, device, dtype, seed=100 + m)
        out.append(("boxops::box_area", (a,), {}))
        out.append(("boxops::box_iou", (a, b), {}))
    return out
