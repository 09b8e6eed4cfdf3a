"""syshdr (tests/reach): a library that needs a system library's headers beside torch, as
torchsparse needs Google's sparsehash (its README: apt-get install libsparsehash-dev). No image
of opmatrix has it: the build stops at the #include, which is what the cell lacks, not the
library's break in its torch: "not checked here", with the fix of an image that has it."""
from setuptools import setup
from torch.utils.cpp_extension import BuildExtension, CppExtension

setup(
    name="syshdr",
    version="0.1.0",
    packages=["syshdr"],
    ext_modules=[CppExtension("syshdr._C", ["csrc/count.cpp"])],
    cmdclass={"build_ext": BuildExtension},
)
