"""DetrStyleOps: an opmatrix fixture in the shape of Deformable-DETR's models/ops/setup.py.

Like that file, it REFUSES to build unless this machine sees a GPU, whatever FORCE_CUDA says:

    NotImplementedError: Cuda is not availabel

(the misspelling is the original's, kept so the log reads as users meet it). opmatrix
diagnoses this as `setup_needs_gpu`: build hosts and CI runners have no GPU, so the fix is to
gate the CUDA build on FORCE_CUDA / CUDA_HOME, never on torch.cuda.is_available(). Written
for opmatrix; no line is taken from Deformable-DETR."""
import glob
import os

import torch
from setuptools import setup
from torch.utils.cpp_extension import CUDA_HOME, BuildExtension, CUDAExtension

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.join(HERE, "src")


def extensions():
    sources = [os.path.join("src", "vision.cpp")] + sorted(
        os.path.relpath(p, HERE) for p in glob.glob(os.path.join(SRC, "cpu", "*.cpp")))
    cuda_sources = sorted(os.path.relpath(p, HERE) for p in glob.glob(os.path.join(SRC, "cuda", "*.cu")))
    if not (torch.cuda.is_available() and CUDA_HOME is not None):
        # The gate under test: a build machine without a visible GPU cannot build at all.
        raise NotImplementedError("Cuda is not availabel")
    return [CUDAExtension(
        "DetrStyleOps",
        sources + cuda_sources,
        include_dirs=[SRC],
        define_macros=[("WITH_CUDA", None)],
        extra_compile_args={"cxx": ["-O2"], "nvcc": ["-O2", "-DCUDA_HAS_FP16=1"]},
    )]


setup(
    name="DetrStyleOps",
    version="0.1.0",
    description="opmatrix fixture: a Deformable-DETR-style extension whose setup.py needs a visible GPU",
    ext_modules=extensions(),
    cmdclass={"build_ext": BuildExtension},
)
