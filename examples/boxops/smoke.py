"""boxops smoke test: load every library the build produced and compare both ops with the
same maths written in plain torch; on a GPU also CUDA against CPU. Exit 0 = all agree.
Run from this folder with OPMATRIX_PROJECT_BUILD=<build folder> (opmatrix sets it)."""
import os
import sys

import torch


def libraries(root):
    for folder, _, files in os.walk(root):
        if "CMakeFiles" in folder or "temp" in folder.split(os.sep):
            continue
        for f in files:
            if f.endswith(".so"):
                yield os.path.join(folder, f)


def reference_area(b):
    return (b[:, 2] - b[:, 0]).clamp(min=0) * (b[:, 3] - b[:, 1]).clamp(min=0)


def reference_iou(a, b):
    lt = torch.max(a[:, None, :2], b[None, :, :2])
    rb = torch.min(a[:, None, 2:], b[None, :, 2:])
    wh = (rb - lt).clamp(min=0)
    inter = wh[..., 0] * wh[..., 1]
    union = reference_area(a)[:, None] + reference_area(b)[None, :] - inter
    return torch.where(union > 0, inter / union.clamp(min=1e-30), torch.zeros_like(union))


def boxes(n, dtype):
    g = torch.Generator().manual_seed(n)
    xy = torch.rand(n, 2, generator=g, dtype=dtype) * 100
    wh = torch.rand(n, 2, generator=g, dtype=dtype) * 30 - 2  # some empty / inverted boxes
    return torch.cat([xy, xy + wh], dim=1)


def main():
    build = os.environ.get("OPMATRIX_PROJECT_BUILD", "build")
    found = list(libraries(build))
    if not found:
        print("no library under %s" % build)
        return 1
    for lib in found:
        torch.ops.load_library(lib)
        print("loaded", lib)
    failures = 0
    for dtype in (torch.float32, torch.float64):
        for n, m in ((0, 3), (1, 1), (37, 11), (300, 200)):
            a, b = boxes(n, dtype), boxes(m + 1000, dtype)[:m]
            got = torch.ops.boxops.box_iou(a, b)
            ok = torch.allclose(got, reference_iou(a, b), atol=1e-6) and torch.allclose(
                torch.ops.boxops.box_area(a), reference_area(a), atol=1e-5)
            meta = torch.ops.boxops.box_iou(a.to("meta"), b.to("meta"))
            ok = ok and meta.shape == (n, m) and meta.dtype == dtype and meta.device.type == "meta"
            if torch.cuda.is_available():
                ok = ok and torch.allclose(torch.ops.boxops.box_iou(a.cuda(), b.cuda()).cpu(), got, atol=1e-6)
            print("%-8s n=%-4d m=%-4d %s" % (str(dtype).split(".")[-1], n, m, "ok" if ok else "MISMATCH"))
            failures += not ok
    if not torch.cuda.is_available():
        print("CUDA comparison skipped: no GPU visible (torch.cuda.is_available() is False)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
