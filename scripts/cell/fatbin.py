"""Which GPU code a built library carries: the SASS (cubin) and PTX of its fat binary, as
`cuobjdump --list-elf` / `--list-ptx` list them. Prints ONE JSON object; never raises.

    fatbin.py [--cuda-root DIR] LIB"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys


def cuobjdump(cuda_root):
    for candidate in [os.path.join(cuda_root, "bin", "cuobjdump") if cuda_root else "", shutil.which("cuobjdump") or ""]:
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    return None


def listed(tool, flag, lib):
    p = subprocess.run([tool, flag, lib], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=300)
    text = p.stdout.decode("utf-8", "replace")
    # "ELF file    1: libopmatrix_ops.1.sm_90.cubin" / "PTX file    1: libopmatrix_ops.1.sm_90.ptx"
    archs = sorted(set(re.findall(r"\.(sm_\d+[af]?)\.(?:cubin|ptx)", text)), key=lambda s: (int(re.sub(r"\D", "", s)), s))
    # cuobjdump exits 255 with "does not contain device code" for a CPU-only library.
    return archs, (None if p.returncode == 0 or "does not contain" in text else text.strip()[-2000:])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cuda-root", default="")
    ap.add_argument("library")
    args = ap.parse_args()
    out = {"library": args.library, "tool": None, "elf": [], "ptx": [], "error": None}
    tool = cuobjdump(args.cuda_root)
    if tool is None:
        out["error"] = "no cuobjdump in this cell (CUDA root %s)" % (args.cuda_root or "unknown")
        return out
    out["tool"] = tool
    try:
        out["elf"], err_elf = listed(tool, "--list-elf", args.library)
        out["ptx"], err_ptx = listed(tool, "--list-ptx", args.library)
        out["error"] = err_elf or err_ptx
    except (OSError, subprocess.SubprocessError) as e:
        out["error"] = "%s: %s" % (type(e).__name__, e)
    return out


if __name__ == "__main__":
    print(json.dumps(main()))
    sys.stdout.flush()
