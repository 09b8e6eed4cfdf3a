"""scripts/cell/load_library.py: ops as users reach them. A package whose `import` does not load
its extension (a submodule imports `pkg._C` when first used) has its ops once `pkg._C` is
imported, and the report says which import made them appear; a package whose build made no
compiled library is judged by its import, not as an error."""
import os

import pytest

from conftest import cell_python_json, compile_op_library, run_json

# The lazily loaded extension module: its ops, and a PyInit__C so that Python imports it as
# `lazypkg._C` (an empty module: the ops are what it brings).
LAZY_CPP = r"""
#include <Python.h>
#include <ATen/core/Tensor.h>
#include <torch/library.h>

namespace {
at::Tensor twice(const at::Tensor& x) { return x; }
}
TORCH_LIBRARY(opm_lazy, m) { m.def("twice(Tensor x) -> Tensor"); }
TORCH_LIBRARY_IMPL(opm_lazy, CPU, m) { m.impl("twice", twice); }

static PyModuleDef lazy_module = {PyModuleDef_HEAD_INIT, "_C", nullptr, -1, nullptr};
PyMODINIT_FUNC PyInit__C() { return PyModule_Create(&lazy_module); }
"""


@pytest.fixture(scope="module")
def lazy_site(torch_info, cxx, build_root):
    """site/lazypkg: __init__.py loads nothing compiled; ops.py imports lazypkg._C when used."""
    python_include = cell_python_json("import json, sysconfig; print(json.dumps(sysconfig.get_paths()['include']))",
                                      "has no include folder")
    if not os.path.isfile(os.path.join(python_include, "Python.h")):
        pytest.skip("no Python.h in %s (install python3-dev)" % python_include)
    lib = compile_op_library(torch_info, cxx, build_root, "opm_lazy", LAZY_CPP, ["-I" + python_include])
    site = build_root / "lazy-site"
    pkg = site / "lazypkg"
    pkg.mkdir(parents=True, exist_ok=True)
    (pkg / "__init__.py").write_text("VERSION = 1  # the extension is imported by lazypkg.ops, when first used\n")
    (pkg / "ops.py").write_text("from lazypkg import _C  # noqa: F401\n")
    target = pkg / "_C.so"
    if not target.exists():
        os.link(lib, str(target))
    return site


def run_load(site, *args):
    env = dict(os.environ, PYTHONPATH=str(site), PYTHONDONTWRITEBYTECODE="1")
    out, _ = run_json("load_library.py", *args, env=env)
    return out


def test_lazily_imported_extension_registers_its_ops(lazy_site):
    out = run_load(lazy_site, "--namespace", "opm_lazy", "--ops", "twice", "--import", "lazypkg",
                   "--find", str(lazy_site))
    assert out["import"]["ok"] is True, out["import"]
    assert out["ops"]["twice"]["CPU"] is True, out
    assert out["reached"]["modules"] == ["lazypkg._C"], out["reached"]
    assert out["reached"]["ops"] == {"twice": "lazypkg._C"}, out["reached"]
    # The library itself loads on its own too: the load verdict is unchanged.
    assert [lib["loaded"] for lib in out["libraries"]] == [True]


def test_no_reach_where_the_import_brings_the_ops(lazy_site):
    out = run_load(lazy_site, "--namespace", "opm_lazy", "--ops", "twice", "--import", "lazypkg.ops",
                   "--find", str(lazy_site))
    assert out["ops"]["twice"]["CPU"] is True
    assert "reached" not in out, out.get("reached")


def test_namespace_without_ops_listed_is_reached_too(lazy_site):
    if not cell_python_json("import json, torch; print(json.dumps(hasattr(torch._C, '_dispatch_get_all_op_names')))",
                            "cannot import torch"):
        pytest.skip("this torch cannot list a namespace's ops (torch._C._dispatch_get_all_op_names): ops must be named")
    out = run_load(lazy_site, "--namespace", "opm_lazy", "--import", "lazypkg", "--find", str(lazy_site))
    assert list(out["ops"]) == ["twice"] and out["reached"]["ops"] == {"twice": "lazypkg._C"}


def test_a_package_with_no_compiled_library_is_judged_by_its_import(build_root, torch_info):
    site = build_root / "pure-site"
    (site / "purepkg").mkdir(parents=True, exist_ok=True)
    (site / "purepkg" / "__init__.py").write_text("def fallback(x):\n    return x\n")
    out = run_load(site, "--namespace", "opm_pure", "--ops", "fallback", "--import", "purepkg", "--find", str(site))
    assert out["error"] is None and out["libraries"] == []
    assert out["import"]["ok"] is True and out["import"]["functions"] == ["fallback"]
    # Without a module to import, nothing to load is still the error it was.
    out = run_load(site, "--namespace", "opm_pure", "--find", str(site))
    assert out["error"] == "no library to load (none built?)"
