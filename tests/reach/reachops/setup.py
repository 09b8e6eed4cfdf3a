"""reachops (tests/reach): a package whose `import reachops` loads no compiled code: its functions
import the extension module reachops._C when first called, as many detection libraries do. One of
its ops is defined by a function pointer (no schema string anywhere in its sources). Its metadata
is in pyproject.toml; setup.py only declares the extension."""
from setuptools import setup
from torch.utils.cpp_extension import BuildExtension, CppExtension

setup(ext_modules=[CppExtension("reachops._C", ["csrc/reach.cpp"], extra_compile_args=["-O1"])],
      cmdclass={"build_ext": BuildExtension})
