"""gpugated smoke test: import the package, check torch.ops.gpugated.scale against x * s,
under FakeTensorMode (the Python fake kernel gives the shape, dtype and device), and on CUDA
when a GPU is visible. Exit 0 = all good.

Run from this folder after installing the built wheel, or with OPMATRIX_PROJECT_BUILD=<dir>
where <dir>/lib holds `setup.py build_ext --build-lib` output."""
import os
import sys

build = os.environ.get("OPMATRIX_PROJECT_BUILD")
if build:
    sys.path.insert(0, os.path.join(build, "lib"))

import torch  # noqa: E402
from torch._subclasses.fake_tensor import FakeTensorMode  # noqa: E402

import gpugated  # noqa: E402


def main():
    failures = 0

    def check(name, ok):
        nonlocal failures
        print("%-40s %s" % (name, "ok" if ok else "FAIL"))
        failures += not ok

    got = torch.ops.gpugated.scale(torch.ones(3), 2.0)
    check("scale(ones(3), 2.0) == 2", torch.equal(got, torch.full((3,), 2.0)))
    x = torch.randn(4, 5, dtype=torch.float64)
    check("scale(randn(4, 5) double, -1.5)", torch.allclose(gpugated.scale(x, -1.5), x * -1.5))
    check("scale(empty)", gpugated.scale(torch.empty(0, 7), 3.0).shape == (0, 7))

    with FakeTensorMode() as mode:
        fake = torch.ops.gpugated.scale(mode.from_tensor(torch.ones(2, 3)), 2.0)
    check("FakeTensorMode: shape (2, 3), float32",
          tuple(fake.shape) == (2, 3) and fake.dtype == torch.float32 and fake.device.type == "cpu")
    meta = torch.ops.gpugated.scale(torch.empty(6, 1, device="meta"), 2.0)
    check("meta tensor: shape (6, 1)", tuple(meta.shape) == (6, 1) and meta.device.type == "meta")

    cuda_kernel = torch._C._dispatch_has_kernel_for_dispatch_key("gpugated::scale", "CUDA")
    print("CUDA kernel registered: %s" % cuda_kernel)
    if torch.cuda.is_available():
        y = torch.randn(1000, device="cuda")
        check("CUDA against CPU", torch.allclose(gpugated.scale(y, 3.0).cpu(), y.cpu() * 3.0))
    else:
        print("CUDA comparison skipped: no GPU visible (torch.cuda.is_available() is False)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
