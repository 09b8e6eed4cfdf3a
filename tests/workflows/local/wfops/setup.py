"""wfops (tests/workflows/local): the op library of the workflow's local run, one op with a CPU and
a Meta kernel, registered with the pt2_compliant tag (torch 2.1 and newer: its build fails in
torch 1.13, the red cell of the run)."""
from setuptools import setup
from torch.utils.cpp_extension import BuildExtension, CppExtension

setup(
    name="wfops",
    version="0.1.0",
    packages=["wfops"],
    ext_modules=[CppExtension("wfops._C", ["csrc/wfops.cpp"], extra_compile_args=["-O1"])],
    cmdclass={"build_ext": BuildExtension},
)
