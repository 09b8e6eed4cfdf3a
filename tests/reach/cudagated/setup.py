"""cudagated (tests/reach): its compiled extension is CUDA-only, and its setup.py builds it only
where CUDA is there; elsewhere the package runs its pure-PyTorch fallback, as it promises."""
import torch
from setuptools import setup
from torch.utils.cpp_extension import CUDA_HOME, BuildExtension, CUDAExtension

ext_modules = []
if torch.cuda.is_available() and CUDA_HOME is not None:
    ext_modules = [CUDAExtension("cudagated._C", ["csrc/scale.cpp", "csrc/scale_kernel.cu"])]
else:
    print("Compiling without CUDA: cudagated will use its PyTorch fallback")

setup(
    name="cudagated",
    version="0.1.0",
    packages=["cudagated"],
    ext_modules=ext_modules,
    cmdclass={"build_ext": BuildExtension},
)
