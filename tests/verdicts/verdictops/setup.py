"""verdictops: a deliberately mixed op library, one op per verdict rule (tests/verdicts)."""
from setuptools import setup
from torch.utils.cpp_extension import BuildExtension, CppExtension

setup(
    name="verdictops",
    version="0.1.0",
    packages=["verdictops"],
    ext_modules=[CppExtension("verdictops._C", ["csrc/ops.cpp"], extra_compile_args=["-O1"])],
    cmdclass={"build_ext": BuildExtension},
)
