"""tallyops: a fixture op library laid out as most op libraries are (its package folder at the
repository's root, no src/), with a runtime requirement beyond torch (tabulate) and its own
pytest suite (test/; broken/ holds one deliberately failing test)."""
from setuptools import setup
from torch.utils.cpp_extension import BuildExtension, CppExtension

setup(
    name="tallyops",
    version="0.1.0",
    packages=["tallyops"],
    install_requires=["torch", "tabulate>=0.9"],
    extras_require={"test": ["pytest"]},
    ext_modules=[CppExtension("tallyops._C", ["csrc/tally.cpp"], extra_compile_args=["-O2"])],
    cmdclass={"build_ext": BuildExtension},
)
