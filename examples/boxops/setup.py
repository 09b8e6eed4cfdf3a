"""boxops as a torch.utils.cpp_extension project:

    python setup.py build_ext --build-lib BUILD/lib --build-temp BUILD/temp

FORCE_CUDA=1 adds the CUDA kernels (archs from TORCH_CUDA_ARCH_LIST), as opmatrix sets it
exactly when the cell promises CUDA."""
import glob
import os

from setuptools import setup
from torch.utils.cpp_extension import BuildExtension, CppExtension, CUDAExtension

HERE = os.path.dirname(os.path.abspath(__file__))
with_cuda = os.environ.get("FORCE_CUDA", "0") == "1"
sources = sorted(glob.glob("csrc/*.cpp") + glob.glob("csrc/cpu/*.cpp") + glob.glob("csrc/meta/*.cpp"))
extension = CppExtension
if with_cuda:
    sources += sorted(glob.glob("csrc/cuda/*.cu"))
    extension = CUDAExtension

setup(
    name="boxops",
    version="0.1.0",
    ext_modules=[extension("boxops._C", sources, include_dirs=[os.path.join(HERE, "csrc")],
                           extra_compile_args={"cxx": ["-O2"], "nvcc": ["-O2"]})],
    cmdclass={"build_ext": BuildExtension},
)
