"""DetrStyleOps smoke test: ms_sum(value) against value.sum(1) on CPU, and on CUDA when a GPU
is visible. Exit 0 = all agree. Run after installing the built wheel, or with
OPMATRIX_PROJECT_BUILD=<dir> where <dir>/lib holds `setup.py build_ext --build-lib` output."""
import os
import sys

build = os.environ.get("OPMATRIX_PROJECT_BUILD")
if build:
    sys.path.insert(0, os.path.join(build, "lib"))

import torch  # noqa: E402  (before the extension: it needs torch's libraries)

import DetrStyleOps  # noqa: E402


def main():
    failures = 0
    devices = ["cpu"] + (["cuda"] if torch.cuda.is_available() else [])
    for device in devices:
        for dtype in (torch.float32, torch.float64):
            for shape in ((2, 30, 8, 32), (1, 0, 4, 4), (3, 7, 1, 5)):
                value = torch.randn(*shape, dtype=dtype, device=device)
                got = DetrStyleOps.ms_sum(value)
                ok = got.shape == (shape[0], shape[2], shape[3]) and torch.allclose(got, value.sum(1), atol=1e-5)
                print("%-4s %-8s %-16s %s" % (device, str(dtype).split(".")[-1], shape, "ok" if ok else "MISMATCH"))
                failures += not ok
    if len(devices) == 1:
        print("CUDA comparison skipped: no GPU visible (torch.cuda.is_available() is False)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
