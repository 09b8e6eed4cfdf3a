"""cudaonly (tests/reach): a CUDA-only library, as Pointnet2_PyTorch's pointnet2_ops is: its
setup.py builds a CUDAExtension and nothing else, so without a CUDA toolkit torch's
cpp_extension stops it ("CUDA_HOME environment variable is not set"). In a runtime without
CUDA that is what the cell lacks, not the library's break: "not checked here"."""
from setuptools import setup
from torch.utils.cpp_extension import BuildExtension, CUDAExtension

setup(
    name="cudaonly",
    version="0.1.0",
    packages=["cudaonly"],
    ext_modules=[CUDAExtension("cudaonly._C", ["csrc/twice.cpp", "csrc/twice_kernel.cu"])],
    cmdclass={"build_ext": BuildExtension},
)
