"""Does this cell's NVRTC accept each GPU architecture? Compiles a tiny kernel at runtime for
every arch given, the way torch's JIT paths (and user code built on them) do, and reports
NVRTC's own log: on an unsupported arch that is the users' "nvrtc: error: invalid value for
--gpu-architecture (-arch)". Needs no GPU and no driver. Prints ONE JSON object; never raises.

    nvrtc_probe.py [--cuda-root DIR] 7.0 8.0 10.0 ...

The NVRTC probed is the one torch would load: the nvidia-cuda-nvrtc wheel next to a pip
torch, else torch/lib, else the toolkit's (CUDA root), else the system's. torch is imported
first, as in any process where torch's JIT compiles: `import torch` preloads the CUDA wheels'
libraries, NVRTC's builtins among them, and the nvidia-cuda-nvrtc 13.0 wheel's libnvrtc has no
RUNPATH to find its builtins by itself ("failed to open libnvrtc-builtins.so.13.0" without it)."""
import argparse
import ctypes
import glob
import json
import os
import sys

KERNEL = b'extern "C" __global__ void opmatrix_probe(float* x) { x[threadIdx.x] *= 2.0f; }'


def candidates(cuda_root):
    found = []
    for p in sys.path:
        found += sorted(glob.glob(os.path.join(p, "nvidia", "cuda_nvrtc", "lib", "libnvrtc.so*")))
        found += sorted(glob.glob(os.path.join(p, "nvidia", "cu1*", "lib", "libnvrtc.so*")))
        found += sorted(glob.glob(os.path.join(p, "torch", "lib", "libnvrtc*.so*")))
    for root in filter(None, [cuda_root, os.environ.get("CUDA_HOME"), "/usr/local/cuda"]):
        found += sorted(glob.glob(os.path.join(root, "lib64", "libnvrtc.so*")))
        found += sorted(glob.glob(os.path.join(root, "lib", "libnvrtc.so*")))
    found += sorted(glob.glob("/usr/lib/x86_64-linux-gnu/libnvrtc.so*"))
    # Versioned names only (libnvrtc.so.12, .so.13...): the builtins helper library is not NVRTC.
    return [f for f in found if "builtins" not in os.path.basename(f) and "alt" not in os.path.basename(f)]


def load_nvrtc(cuda_root):
    errors = []
    for path in candidates(cuda_root):
        try:
            return ctypes.CDLL(path), path, errors
        except OSError as e:
            errors.append("%s: %s" % (path, e))
    return None, None, errors


def compile_for(nvrtc, arch):
    """(accepted, log) for `--gpu-architecture=sm_XY`."""
    prog = ctypes.c_void_p()
    rc = nvrtc.nvrtcCreateProgram(ctypes.byref(prog), KERNEL, b"probe.cu", 0, None, None)
    if rc != 0:
        return False, "nvrtcCreateProgram failed (%d)" % rc
    option = ("--gpu-architecture=sm_%s" % arch.replace(".", "")).encode()
    opts = (ctypes.c_char_p * 1)(option)
    rc = nvrtc.nvrtcCompileProgram(prog, 1, opts)
    size = ctypes.c_size_t()
    nvrtc.nvrtcGetProgramLogSize(prog, ctypes.byref(size))
    buf = ctypes.create_string_buffer(max(size.value, 1))
    nvrtc.nvrtcGetProgramLog(prog, buf)
    nvrtc.nvrtcDestroyProgram(ctypes.byref(prog))
    log = buf.value.decode("utf-8", "replace").strip()
    if rc != 0:
        get_error = nvrtc.nvrtcGetErrorString
        get_error.restype = ctypes.c_char_p
        reason = (get_error(rc) or b"").decode()
        return False, "%s: %s" % (reason, log) if log else reason
    return True, "%s accepted" % option.decode()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cuda-root", default="")
    ap.add_argument("archs", nargs="*")
    args = ap.parse_args()
    out = {"library": None, "version": None, "archs": {}, "error": None, "torch_imported": False}
    try:
        import torch  # noqa: F401 - for what its import preloads
        out["torch_imported"] = True
    except Exception:  # noqa: BLE001 - a cell without (a working) torch still has an NVRTC to probe
        pass
    nvrtc, path, errors = load_nvrtc(args.cuda_root)
    if nvrtc is None:
        out["error"] = "no NVRTC library in this cell" + ("; " + "; ".join(errors) if errors else "")
        return out
    out["library"] = path
    major, minor = ctypes.c_int(), ctypes.c_int()
    if nvrtc.nvrtcVersion(ctypes.byref(major), ctypes.byref(minor)) == 0:
        out["version"] = "%d.%d" % (major.value, minor.value)
    for arch in args.archs:
        ok, log = compile_for(nvrtc, arch)
        out["archs"][arch] = {"accepted": ok, "log": log[:2000]}
    return out


if __name__ == "__main__":
    print(json.dumps(main()))
    sys.stdout.flush()
