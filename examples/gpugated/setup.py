"""gpugated: a torch.utils.cpp_extension project of our own, written the way many real op
libraries are (PyTorch's extension-cpp tutorial among them): the CUDA kernels are built only
when this machine can SEE a GPU.

    pip wheel --no-deps --no-build-isolation .        (or: python setup.py bdist_wheel)

It ignores FORCE_CUDA on purpose: on a build host or CI runner without a GPU it builds a
CPU-only extension in silence, and the missing CUDA kernel shows up only at run time
("Could not run 'gpugated::scale' with arguments from the 'CUDA' backend"). opmatrix uses it as
the fixture of that failure ("built CPU-only"); do not copy this gate into a real project
(gate on FORCE_CUDA / CUDA_HOME instead, as examples/boxops does)."""
import os

import torch
from setuptools import setup
from torch.utils.cpp_extension import CUDA_HOME, BuildExtension, CppExtension, CUDAExtension

HERE = os.path.dirname(os.path.abspath(__file__))

# The gate this fixture exists for: a visible GPU at build time, nothing else.
with_cuda = torch.cuda.is_available() and CUDA_HOME is not None
sources = [os.path.join("csrc", "gpugated.cpp")]
extension = CppExtension
if with_cuda:
    sources.append(os.path.join("csrc", "gpugated_cuda.cu"))
    extension = CUDAExtension
print("gpugated: building %s (torch.cuda.is_available() = %s)"
      % ("with CUDA kernels" if with_cuda else "CPU-only", torch.cuda.is_available()))

setup(
    name="gpugated",
    version="0.1.0",
    description="opmatrix fixture: an op library whose CUDA build depends on a visible GPU",
    packages=["gpugated"],
    ext_modules=[extension("gpugated._C", sources, extra_compile_args={"cxx": ["-O2"], "nvcc": ["-O2"]})],
    cmdclass={"build_ext": BuildExtension},
)
