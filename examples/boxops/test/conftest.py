"""Loads the boxops library the build made: under $OPMATRIX_PROJECT_BUILD (opmatrix sets it to
the build folder, or the folder its wheel was installed into), else ./build."""
import os

import pytest
import torch


def _libraries(root):
    for folder, _, files in os.walk(root):
        if "CMakeFiles" in folder or "temp" in folder.split(os.sep):
            continue
        for f in files:
            if f.endswith(".so"):
                yield os.path.join(folder, f)


@pytest.fixture(scope="session", autouse=True)
def boxops_library():
    root = os.environ.get("OPMATRIX_PROJECT_BUILD", "build")
    found = list(_libraries(root))
    assert found, "no library under %s: build boxops first" % root
    for lib in found:
        torch.ops.load_library(lib)
    return found


@pytest.fixture
def boxes():
    return torch.tensor([[0.0, 0.0, 2.0, 2.0], [1.0, 1.0, 3.0, 4.0], [5.0, 5.0, 4.0, 6.0]])
