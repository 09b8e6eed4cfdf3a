"""What a Python user of this cell gets from torchvision: does it import, which of its ops
have CPU / CUDA / Meta / Autograd kernels after `import torchvision`, and which CUDA it was
built with. Prints one JSON object; never raises (a failed import is data).

Recent torchvision registers Meta and Autograd kernels from Python, so this view can differ
from a C++ dlopen of torchvision's _C library (the harness records both, labelled).

"ops": {op: {key: true/false/null}} (served by dispatcher.py's rule, null: no such op);
"served_by": {op: {key: "CPU"/"CompositeExplicitAutograd"/.../null}}, the registration that
serves it. Anything the imports print goes to stderr: stdout is the JSON alone."""
import json
import os
import sys

from dispatcher import kernel_table, served_by

OPS = ["nms", "roi_align", "deform_conv2d", "roi_pool", "ps_roi_align", "ps_roi_pool"]


def main():
    out = {"view": "python import", "import_ok": False, "error": None, "torch_cuda": None,
           "torchvision": None, "torchvision_cuda": None, "ops": {}, "served_by": {}}
    sys.stdout.flush()
    saved = os.dup(1)
    os.dup2(2, 1)  # what the imports print (C code included) goes to stderr
    try:
        collect(out)
    finally:
        sys.stdout.flush()
        os.dup2(saved, 1)
        os.close(saved)
    print(json.dumps(out))


def collect(out):
    try:
        import torch
        out["torch_cuda"] = torch.version.cuda
    except BaseException as e:  # noqa: BLE001 - report, never raise (SystemExit of a broken install too)
        out["error"] = "import torch: %s: %s" % (type(e).__name__, e)
        return
    try:
        import torchvision
        out["import_ok"] = True
        out["torchvision"] = torchvision.__version__
    except BaseException as e:  # noqa: BLE001
        out["error"] = "import torchvision: %s: %s" % (type(e).__name__, e)
    try:
        v = int(torch.ops.torchvision._cuda_version())
        # torchvision encodes CUDA 12.4 as 12040; -1 means built without CUDA.
        out["torchvision_cuda"] = None if v < 0 else "%d.%d" % (v // 1000, (v % 1000) // 10)
    except Exception as e:  # noqa: BLE001
        if out["error"] is None:
            out["error"] = "torchvision::_cuda_version: %s: %s" % (type(e).__name__, e)
    out["ops"] = kernel_table(torch, "torchvision", OPS)
    out["served_by"] = served_by(torch, "torchvision", OPS)


if __name__ == "__main__":
    main()
    sys.stdout.flush()
