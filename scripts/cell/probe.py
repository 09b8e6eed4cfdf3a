#!/usr/bin/env python3
"""Describe a cell's toolchain as ONE JSON object on stdout (docs/cell-contract.md, step 1).

Run with the cell's Python:  $OPMATRIX_PYTHON scripts/cell/probe.py
Standard library only, Python 3.8+. It never crashes: anything that fails (torch or
torchvision not importable, no nvcc, ...) becomes null plus a line in "errors", because a
broken import is exactly what the harness wants to report.

Keys: torch, torch_cuda, cxx11_abi, torchvision, torchvision_cuda, torchvision_ext, nvcc,
cxx, cmake, torch_cmake_prefix, python, errors; extra: python_executable, torch_path,
cudnn, cuda_root, torchvision_from, torch_cuda_archs (torch.cuda.get_arch_list(): the archs torch's
own kernels are built for), gpus (the compute capabilities of the GPUs torch sees, e.g.
["9.0"]: none in a container without one).
"""
import contextlib
import glob
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys

errors = []


def err(what, exc):
    text = "%s: %s" % (what, exc if isinstance(exc, str) else "%s: %s" % (type(exc).__name__, exc))
    errors.append(" ".join(text.split())[:2000])


@contextlib.contextmanager
def stdout_to_stderr():
    """Keep stdout for the JSON only: imports may print (C code included), so move fd 1."""
    sys.stdout.flush()
    saved = os.dup(1)
    os.dup2(2, 1)
    try:
        yield
    finally:
        sys.stdout.flush()
        os.dup2(saved, 1)
        os.close(saved)


def run(argv, what):
    try:
        out = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             universal_newlines=True, timeout=120)
    except (OSError, subprocess.SubprocessError) as e:
        err(what, e)
        return None
    if out.returncode != 0:
        err(what, "exit %d: %s" % (out.returncode, out.stdout.strip()[-500:]))
        return None
    return out.stdout


def decode_cuda_int(v):
    """torchvision's _cuda_version(): 12040 -> "12.4", -1 -> None."""
    try:
        v = int(v)
    except (TypeError, ValueError):
        return None
    if v <= 0:
        return None
    return "%d.%d" % (v // 1000, (v % 1000) // 10)


def find_torchvision_ext():
    """Path of torchvision's _C*.so without importing torchvision: find_spec of a top-level
    package locates it without running its __init__, so this works when the import fails."""
    try:
        spec = importlib.util.find_spec("torchvision")
    except Exception as e:  # noqa: BLE001 - anything here is data
        err("find torchvision", e)
        return None
    if spec is None:
        return None
    for d in (spec.submodule_search_locations or []):
        hits = sorted(glob.glob(os.path.join(d, "_C*.so")) + glob.glob(os.path.join(d, "_C*.pyd")))
        if hits:
            return hits[0]
    err("torchvision_ext", "no _C*.so in torchvision package %s" % list(spec.submodule_search_locations or []))
    return None


def probe_torch(result):
    with stdout_to_stderr():
        try:
            import torch  # noqa: F401
        except BaseException as e:  # noqa: BLE001 - SystemExit from a broken install too
            err("import torch", e)
            return None
    result["torch"] = str(torch.__version__)
    result["torch_path"] = os.path.dirname(os.path.abspath(torch.__file__))
    try:
        result["torch_cuda"] = torch.version.cuda
    except Exception as e:  # noqa: BLE001
        err("torch.version.cuda", e)
    try:
        result["cxx11_abi"] = bool(torch._C._GLIBCXX_USE_CXX11_ABI)
    except Exception as e:  # noqa: BLE001
        err("torch._C._GLIBCXX_USE_CXX11_ABI", e)
    if result.get("torch_cuda"):
        with stdout_to_stderr():
            try:
                result["cudnn"] = torch.backends.cudnn.version()
            except Exception as e:  # noqa: BLE001 - a missing/stub libcudnn shows here
                err("torch.backends.cudnn.version()", e)
            try:  # the archs torch's own kernels are built for (sm_90, compute_90): the build's
                # flags, which torch.cuda.get_arch_list() returns only where a GPU is visible
                flags = torch._C._cuda_getArchFlags() if hasattr(torch._C, "_cuda_getArchFlags") else None
                result["torch_cuda_archs"] = flags.split() if flags else list(torch.cuda.get_arch_list())
            except Exception as e:  # noqa: BLE001
                err("torch._C._cuda_getArchFlags()", e)
            try:  # what a registration that needs a visible GPU would see
                result["gpus"] = ["%d.%d" % torch.cuda.get_device_capability(i) for i in range(torch.cuda.device_count())]
            except Exception as e:  # noqa: BLE001 - no driver: none visible
                err("torch.cuda.device_count()", e)
    return torch


def debian_torch_prefix():
    hits = sorted(glob.glob("/usr/lib/*-linux-gnu/cmake/Torch/TorchConfig.cmake"))
    return os.path.dirname(os.path.dirname(hits[0])) if hits else None


def probe_cmake_prefix(result, torch):
    """Debian: /usr/lib/<triplet>/cmake (torch.utils.cmake_prefix_path names a folder that
    does not exist there). pip/conda: torch.utils.cmake_prefix_path."""
    debian = debian_torch_prefix()
    torch_dir = result.get("torch_path") or ""
    if torch is not None and not torch_dir.startswith("/usr/lib/python3/"):
        try:
            p = torch.utils.cmake_prefix_path
            if os.path.isfile(os.path.join(p, "Torch", "TorchConfig.cmake")):
                return p
            err("torch_cmake_prefix", "torch.utils.cmake_prefix_path %s has no Torch/TorchConfig.cmake" % p)
        except Exception as e:  # noqa: BLE001
            err("torch.utils.cmake_prefix_path", e)
    if debian:
        return debian
    if torch is not None:
        err("torch_cmake_prefix", "no TorchConfig.cmake found")
    return None


def probe_torchvision(result, torch):
    result["torchvision_ext"] = find_torchvision_ext()
    if result["torchvision_ext"] is None and importlib.util.find_spec("torchvision") is None:
        return
    tv = None
    with stdout_to_stderr():
        try:
            import torchvision as tv  # noqa: F811
        except BaseException as e:  # noqa: BLE001 - a failed import is data
            err("import torchvision", e)
    if tv is not None:
        result["torchvision"] = str(getattr(tv, "__version__", None))
        result["torchvision_from"] = "import"
        # Debian's torchvision.version has no `cuda`; _cuda_version() below answers then.
        # Some releases store an int there (12040, set by torchvision.extension): normalise.
        cuda = getattr(getattr(tv, "version", None), "cuda", None)
        if isinstance(cuda, int):
            cuda = decode_cuda_int(cuda)
        result["torchvision_cuda"] = str(cuda) if cuda else None
    else:
        # Version without importing: the dist-info/egg-info metadata.
        try:
            from importlib import metadata  # py3.8+
            result["torchvision"] = metadata.version("torchvision")
            result["torchvision_from"] = "metadata"
        except Exception as e:  # noqa: BLE001
            err("torchvision metadata", e)
    # The extension's own answer: load it into torch (works even if `import torchvision`
    # failed for a pure-Python reason) and ask it which CUDA it was built with.
    if torch is None or not result["torchvision_ext"]:
        return
    with stdout_to_stderr():
        try:
            if tv is None:
                torch.ops.load_library(result["torchvision_ext"])
            cuda = decode_cuda_int(torch.ops.torchvision._cuda_version())
            if result.get("torchvision_cuda") is None:
                result["torchvision_cuda"] = cuda
            elif cuda is not None and cuda != result["torchvision_cuda"]:
                err("torchvision_cuda", "version.cuda %s but _cuda_version() %s" % (result["torchvision_cuda"], cuda))
        except BaseException as e:  # noqa: BLE001
            err("torchvision extension", e)


def probe_nvcc(result):
    root = os.environ.get("OPMATRIX_CUDA_ROOT") or ""
    result["cuda_root"] = root or None
    nvcc = os.path.join(root, "bin", "nvcc") if root else shutil.which("nvcc")
    if root and not os.path.exists(nvcc):
        err("nvcc", "OPMATRIX_CUDA_ROOT=%s has no bin/nvcc" % root)
        return
    if not nvcc:
        return
    out = run([nvcc, "--version"], "nvcc --version")
    if out:
        m = re.search(r"release [\d.]+, V([\d.]+)", out) or re.search(r"release ([\d.]+)", out)
        result["nvcc"] = m.group(1) if m else out.strip().splitlines()[-1]


def main():
    result = {
        "torch": None, "torch_cuda": None, "cxx11_abi": None,
        "torchvision": None, "torchvision_cuda": None, "torchvision_ext": None,
        "nvcc": None, "cxx": None, "cmake": None, "torch_cmake_prefix": None,
        "python": "%d.%d.%d" % sys.version_info[:3], "python_executable": sys.executable,
        "torch_path": None, "cudnn": None, "cuda_root": None, "torchvision_from": None, "gpus": [],
        "errors": errors,
    }
    try:
        torch = probe_torch(result)
        result["torch_cmake_prefix"] = probe_cmake_prefix(result, torch)
        probe_torchvision(result, torch)
        probe_nvcc(result)
        cxx = os.environ.get("CXX") or "c++"
        out = run([cxx, "--version"], "%s --version" % cxx)
        if out:
            result["cxx"] = out.strip().splitlines()[0]
        out = run(["cmake", "--version"], "cmake --version")
        if out:
            m = re.search(r"cmake version (\S+)", out)
            result["cmake"] = m.group(1) if m else out.strip().splitlines()[0]
    except BaseException as e:  # noqa: BLE001 - the JSON must come out whatever happens
        err("probe", e)
    sys.stdout.write(json.dumps(result, sort_keys=False) + "\n")
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
