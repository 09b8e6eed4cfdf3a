"""kernels/python/opmatrix_ops.py, the Python side of our op library, on this machine's real
torch: it loads the library once, registers nms's fake kernel with what the torch offers, and
where the torch offers nothing (or the library kept its own C++ Meta kernel) it says so instead
of registering a made-up size. The libraries are small real ones defining opmatrix::nms."""
import json
import os
import subprocess

import pytest

from conftest import CELL_PYTHON, REPO, cell_env, compile_op_library

MODULE_DIR = REPO / "kernels" / "python"

NMS_SCHEMA = r"""
#include <torch/library.h>
#include <ATen/ATen.h>
at::Tensor nms_cpu(const at::Tensor& dets, const at::Tensor&, double) {
  return at::arange(dets.size(0) > 0 ? 1 : 0, dets.options().dtype(at::kLong));
}
TORCH_LIBRARY(opmatrix, m) {
#ifdef NAMES_MODULE
  m.set_python_module("opmatrix_ops");  // as kernels/ops/nms.cpp does where torch has it
#endif
  m.def("nms(Tensor dets, Tensor scores, float iou_threshold) -> Tensor"); }
TORCH_LIBRARY_IMPL(opmatrix, CPU, m) { m.impl("nms", nms_cpu); }
"""

# The same op with a C++ Meta kernel, as a build that cannot name the module keeps (it refuses).
WITH_META = NMS_SCHEMA + r"""
at::Tensor nms_meta(const at::Tensor&, const at::Tensor&, double) { TORCH_CHECK(false, "refused"); }
TORCH_LIBRARY_IMPL(opmatrix, Meta, m) { m.impl("nms", nms_meta); }
"""

REPORT = r"""
import json, warnings
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    import opmatrix_ops
import torch
print(json.dumps({"outcome": opmatrix_ops.registered(), "warnings": [str(w.message) for w in caught],
                  "torch": torch.__version__, "has_api": opmatrix_ops.first_attribute(opmatrix_ops.REGISTRARS) is not None}))
"""


def names_module(torch_info):
    """"#define NAMES_MODULE" where this torch's library.h has set_python_module, else ""."""
    for d in torch_info["include"] + ["/usr/include"]:
        header = os.path.join(d, "torch", "library.h")
        if os.path.isfile(header):
            with open(header) as f:
                return "#define NAMES_MODULE\n" if "set_python_module(" in f.read() else ""
    return ""


@pytest.fixture(scope="module")
def nms_library(torch_info, cxx, build_root):
    return compile_op_library(torch_info, cxx, build_root, "opm_nms_schema", names_module(torch_info) + NMS_SCHEMA)


@pytest.fixture(scope="module")
def nms_library_with_meta(torch_info, cxx, build_root):
    return compile_op_library(torch_info, cxx, build_root, "opm_nms_meta", names_module(torch_info) + WITH_META)


def import_report(library, code=REPORT):
    env = cell_env(PYTHONPATH=str(MODULE_DIR), OPMATRIX_OPS_LIBRARY=library)
    p = subprocess.run([CELL_PYTHON, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True, env=env, timeout=300)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout.strip().splitlines()[-1])


def test_registers_the_fake_or_says_this_torch_cannot(nms_library):
    r = import_report(nms_library)
    if r["has_api"]:
        assert r["outcome"] == {"nms": "registered"}
        assert not r["warnings"]
    else:
        why = r["outcome"]["nms"]
        assert why.startswith("torch %s has no API for a Python fake kernel" % r["torch"]), why
        assert "cannot run on fake tensors" in why
        assert r["warnings"] == ["opmatrix_ops: " + why]


def test_a_cpp_meta_kernel_is_left_alone(nms_library_with_meta):
    r = import_report(nms_library_with_meta)
    assert "has a C++ Meta kernel for opmatrix::nms" in r["outcome"]["nms"]
    assert not r["warnings"]


def test_a_library_already_loaded_is_not_loaded_again(nms_library, tmp_path):
    # Two libraries defining the same schemas abort the process: the module must reuse the
    # one the user loaded (the stable-ABI build, say) rather than load its neighbour.
    code = "import torch; torch.ops.load_library(%r)\n" % nms_library + REPORT
    r = import_report(str(tmp_path / "no-such-library.so"), code)
    assert "nms" in r["outcome"]


def test_the_fake_size_is_data_dependent(nms_library):
    code = REPORT + r"""
from torch._subclasses.fake_tensor import FakeTensorMode
from torch.fx.experimental.symbolic_shapes import ShapeEnv
with FakeTensorMode(shape_env=ShapeEnv()) as mode:
    out = torch.ops.opmatrix.nms(torch.empty(8, 4), torch.empty(8), 0.5)
print(json.dumps({"size": str(out.shape[0]), "dtype": str(out.dtype)}))
"""
    probe = import_report(nms_library)
    if not probe["has_api"]:
        pytest.skip("torch %s has no API for a Python fake kernel (torch >= 2.1)" % probe["torch"])
    r = import_report(nms_library, code)
    assert r["dtype"] == "torch.int64"
    assert r["size"] != "8", "the fake kernel gave the upper bound, not an unbacked size"


def test_an_op_without_a_fake_kernel_here_is_said_for_the_checks_to_skip(nms_library):
    code = REPORT.replace('"has_api":', '"unavailable": opmatrix_ops.unavailable_fakes(), "has_api":')
    r = import_report(nms_library, code)
    if r["has_api"]:
        assert r["unavailable"] == {}
    else:
        why = r["unavailable"]["nms"]
        assert why.startswith("nms has no fake kernel in torch %s" % r["torch"]), why
