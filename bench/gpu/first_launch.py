#!/usr/bin/env python3
"""Each of our ops' first CUDA launch in this process against its later ones: where the library
holds no SASS for the card, the first launch carries the driver's JIT compile of our PTX (the
cost behind the verdict's "slow first launch"; run with CUDA_CACHE_DISABLE=1 to keep it cold).
CUDA is initialised first (a torch op on the GPU), so only our kernels' loading is timed. Each
op's first sample (cases/samples.py), forward only; then the median of 5 more calls.

    first_launch.py [--json OUT]       (PYTHONPATH: the folder holding libopmatrix_ops.so)"""
import argparse
import json
import os
import statistics
import sys
import time

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.join(HERE, "..", "..", "cases")]

import opmatrix_ops  # noqa: E402,F401  loads the library beside it
import samples as case_samples  # noqa: E402


def timed_ms(call):
    torch.cuda.synchronize()
    start = time.perf_counter()
    call()
    torch.cuda.synchronize()
    return (time.perf_counter() - start) * 1e3


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--json")
    a = p.parse_args()
    if not torch.cuda.is_available():
        print("first_launch.py: no CUDA device visible: nothing to time")
        return 77
    (torch.ones(8, device="cuda") * 2).sum().item()
    ops, seen = {}, set()
    for qualified, args, kwargs in case_samples.samples("cuda"):
        if qualified in seen:
            continue
        seen.add(qualified)
        name = qualified.split("::")[1]
        op = getattr(torch.ops.opmatrix, name)
        with torch.no_grad():
            first = timed_ms(lambda: op(*args, **kwargs))
            then = statistics.median(timed_ms(lambda: op(*args, **kwargs)) for _ in range(5))
        ops[name] = {"first_ms": round(first, 3), "then_ms": round(then, 3)}
        print("%-15s first %9.3f ms, then %.3f ms" % (name, first, then))
    result = {"device": torch.cuda.get_device_name(), "torch": torch.__version__,
              "cuda_cache_disabled": os.environ.get("CUDA_CACHE_DISABLE") == "1", "ops": ops}
    if a.json:
        with open(a.json, "w") as f:
            json.dump(result, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
