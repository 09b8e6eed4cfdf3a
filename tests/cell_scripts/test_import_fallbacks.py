"""scripts/cell/import_fallbacks.py, through load_library.py: a compiled extension module that
does not load, where the package's `except ImportError:` imports the same names from Python
(torchopt 0.7.3's `torchopt._C` and `torchopt.accelerated_op._src`), is marked with that fallback;
one whose handler binds something else (`adam_op = None`) is not, nor one whose stand-in did not
import either, nor one the import never tried."""
import os
import sys

import pytest

from conftest import CELL, compile_or_fail, run_json

# A real extension module that cannot load: its PyInit calls a symbol nothing defines (RTLD_NOW).
BROKEN_EXTENSION = "extern void *opm_absent_symbol(void);\nvoid *PyInit__C(void) { return opm_absent_symbol(); }\n"

PACKAGES = {
    # torchopt's pattern: the same name from a pure-Python module
    "fallspkg": {
        "__init__.py": "from fallspkg.ops import adam_op\n",
        "ops.py": "try:\n    from fallspkg._C import adam_op  # the fused one\nexcept ImportError:\n"
                  "    from fallspkg._py import adam_op\n",
        "_py.py": "def adam_op(x):\n    return x\n",
    },
    # a relative fallback inside a tuple handler
    "relativepkg": {
        "__init__.py": "try:\n    from ._C import op_a, op_b\nexcept (OSError, ImportError):\n"
                       "    from ._ref import op_a, op_b\n",
        "_ref.py": "def op_a():\n    pass\n\n\ndef op_b():\n    pass\n",
    },
    # goes on without: nothing in the extension's place
    "withoutpkg": {
        "__init__.py": "try:\n    from withoutpkg._C import adam_op\nexcept ImportError:\n    adam_op = None\n",
    },
    # never asks for it
    "untriedpkg": {"__init__.py": "VALUE = 1\n"},
    # xformers 0.0.23's pattern: the stand-in is another package's, not installed, and an outer
    # `try` goes on without both
    "absentpkg": {
        "__init__.py": "try:\n    try:\n        from absentpkg._C import attn\n    except ImportError:\n"
                       "        from opm_absent_flash.interface import attn\nexcept ImportError:\n    attn = None\n",
    },
}


@pytest.fixture(scope="module")
def site(cc, build_root):
    site = build_root / "fallback-site"
    for package, files in PACKAGES.items():
        folder = site / package
        folder.mkdir(parents=True, exist_ok=True)
        for name, text in files.items():
            (folder / name).write_text(text)
        (folder / "_C.c").write_text(BROKEN_EXTENSION)
        compile_or_fail([cc, "-shared", "-fPIC", "_C.c", "-o", "_C.so", "-Wl,--unresolved-symbols=ignore-all"],
                        package + "'s _C.so", cwd=folder)
    return site


def load(site, package):
    env = dict(os.environ, PYTHONPATH=str(site), PYTHONDONTWRITEBYTECODE="1")
    out, _ = run_json("load_library.py", "--import", package, "--find", str(site / package), env=env)
    assert out["import"]["ok"] is True, out["import"]
    libs = {os.path.basename(lib["path"]): lib for lib in out["libraries"]}
    assert libs["_C.so"]["loaded"] is False and libs["_C.so"]["error_kind"] == "undefined_symbol", libs
    return out, libs["_C.so"]


def test_an_extension_replaced_by_python_names_the_fallback_and_where(site):
    out, lib = load(site, "fallspkg")
    assert lib["python_fallback"] == {"module": "fallspkg._C", "site": "fallspkg/ops.py:2", "names": ["adam_op"],
                                      "fallback": "fallspkg._py"}, lib
    assert out["import"]["fallbacks"][0]["error"].endswith("undefined symbol: opm_absent_symbol"), out["import"]


def test_a_relative_fallback_in_a_handler_of_several_exceptions_counts(site):
    _, lib = load(site, "relativepkg")
    assert lib["python_fallback"]["names"] == ["op_a", "op_b"], lib
    assert lib["python_fallback"]["fallback"] == "._ref", lib


@pytest.mark.parametrize("package", ["withoutpkg", "untriedpkg", "absentpkg"])
def test_no_fallback_where_nothing_takes_its_place_or_nothing_tried_it(site, package):
    out, lib = load(site, package)
    assert "python_fallback" not in lib, lib
    assert "fallbacks" not in out["import"], out["import"]


def test_a_handler_that_does_not_catch_import_errors_is_no_fallback(tmp_path):
    sys.path.insert(0, str(CELL))
    import import_fallbacks
    source = tmp_path / "m.py"
    source.write_text("try:\n    from p._C import f\nexcept KeyError:\n    from p._py import f\n")
    assert import_fallbacks.fallback_at(str(source), 2) is None
    source.write_text("try:\n    from p._C import f\nexcept:\n    from p._py import f, g\n")
    assert import_fallbacks.fallback_at(str(source), 2) == {"names": ["f"], "fallback": "p._py"}
    source.write_text("try:\n    from p._C import f, g\nexcept ImportError:\n    from p._py import f\n")
    assert import_fallbacks.fallback_at(str(source), 2) is None, "g has no stand-in"
