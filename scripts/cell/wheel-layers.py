#!/usr/bin/env python3
"""Split the files pip resolved for a torch into one pin file per image layer.

usage: wheel-layers.py OUTDIR LIST...

LIST: a file naming, one per line, the wheels (or sdists) `pip download` resolved, as
pip-wheelhouse-install.sh --pins writes it. Writes OUTDIR/<layer>.txt, one `name==version` per line, sorted, for each layer
below (an empty file where the torch needs nothing of that kind), and prints a summary.

Why layers: a PyPI cell image is ~6 GB, of which ~2.7 GB are NVIDIA's runtime wheels. Torch
minors built for one CUDA release pin the same CUDA libraries and often the same cuBLAS and
cuDNN, but rarely the same NCCL, and never the same torch or triton. An image layer is shared between two
images only when it and every layer under it are identical, so the most widely shared, largest
wheels go lowest. The Containerfile copies each pin file in before installing it: the layer's
cache key is then the file's content, not the torch version.
"""
import os
import re
import sys

LAYERS = [
    # The CUDA toolkit's own libraries: they version with the CUDA release. Not nvJitLink: some
    # torches pin it, others leave it to cuSPARSE's loose requirement (the newest is taken).
    ("cuda-libs", re.compile(r"nvidia-(cuda-runtime|cuda-nvrtc|cuda-cupti|cufft|curand|cusolver|cusparse|nvtx)"
                             r"(-cu\d+)?")),
    # cuBLAS too, but two torches of one CUDA release now and then pin two of its patch releases.
    ("cublas", re.compile(r"nvidia-cublas(-cu\d+)?")),
    ("cudnn", re.compile(r"nvidia-cudnn(-cu\d+)?")),
    ("cusparselt", re.compile(r"nvidia-cusparselt(-cu\d+)?")),
    ("nccl", re.compile(r"nvidia-nccl(-cu\d+)?")),
    # nvJitLink, cuFile, NVSHMEM, the cuda-python bindings, the cuda-toolkit metapackage.
    ("nvidia-other", re.compile(r"(nvidia|cuda)-.*")),
    ("torch", re.compile(r".*")),
]

# The venv's own build tools (pypi.Containerfile chooses them: the ensurepip setuptools that still
# has pkg_resources, which torch 2.0's cpp_extension imports; wheel < 0.46; CMake 3.31, which
# keeps FindCUDA for torch <= 2.1): a torch whose closure names them (triton 2.0.0 requires cmake)
# must not replace them with the newest (setuptools 82 removed pkg_resources; CMake 4 removed
# FindCUDA). What the torch needs of them, the venv's versions give.
KEPT = {"setuptools", "wheel", "cmake"}

# name-version[-build]-py-abi-platform.whl, or name-version.tar.gz / .zip for an sdist.
WHEEL = re.compile(r"^(?P<name>[^-]+)-(?P<version>[^-]+)-.*\.whl$")
SDIST = re.compile(r"^(?P<name>.+)-(?P<version>[0-9][^-]*)\.(tar\.gz|zip)$")


def pin(path):
    base = os.path.basename(path)
    m = WHEEL.match(base) or SDIST.match(base)
    if not m:
        raise ValueError("not a wheel or sdist file name: %s" % base)
    # PEP 503 normalisation: wheel names use _ where the project name has - or .
    name = re.sub(r"[-_.]+", "-", m.group("name")).lower()
    return name, m.group("version")


def layer_of(name):
    return next(layer for layer, pattern in LAYERS if pattern.fullmatch(name))


def main(argv):
    if len(argv) < 3:
        sys.stderr.write("usage: wheel-layers.py OUTDIR LIST...\n")
        return 2
    outdir = argv[1]
    files = []
    for listing in argv[2:]:
        with open(listing) as f:
            files += [line.strip() for line in f if line.strip()]
    pins = {layer: set() for layer, _ in LAYERS}
    kept = []
    try:
        for f in files:
            name, version = pin(f)
            if name in KEPT:
                kept.append("%s==%s" % (name, version))
                continue
            pins[layer_of(name)].add("%s==%s" % (name, version))
    except ValueError as e:
        sys.stderr.write("wheel-layers: %s\n" % e)
        return 1
    os.makedirs(outdir, exist_ok=True)
    for i, (layer, _) in enumerate(LAYERS, start=1):
        lines = sorted(pins[layer])
        with open(os.path.join(outdir, "%d-%s.txt" % (i, layer)), "w") as out:
            out.write("".join(line + "\n" for line in lines))
        print("wheel-layers: %d-%s: %s" % (i, layer, " ".join(lines) or "(nothing)"))
    if kept:
        print("wheel-layers: not pinned, the venv's own are kept: %s" % " ".join(sorted(kept)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
