"""scripts/cell/load_library.py: loads libraries as torch.ops.load_library does and reports
what happened, plus the kernel table ("ops") and "served_by" of a namespace."""
import os
import re
import shutil

import pytest

from conftest import OPS_NAMESPACE, cell_env, compile_or_fail, run_json

KEYS = ["CPU", "CUDA", "Meta", "Autograd"]
CEA, CIA = "CompositeExplicitAutograd", "CompositeImplicitAutograd"
TOP_KEYS = {"torch", "torch_cuda", "libraries", "namespace", "ops", "served_by", "registered_at", "error"}
LIB_KEYS = {"path", "loaded", "error_kind", "error", "undefined", "undefined_count", "missing_libraries", "loaded_after"}

# What conftest.OPS_CPP registers, and so which registration serves each key by the rule.
EXPECTED_SERVED = {
    "cpu_only": {"CPU": "CPU", "CUDA": None, "Meta": None, "Autograd": None},
    "explicit": {"CPU": CEA, "CUDA": CEA, "Meta": CEA, "Autograd": None},
    "cpu_and_explicit": {"CPU": "CPU", "CUDA": CEA, "Meta": CEA, "Autograd": None},
    "implicit": {"CPU": CIA, "CUDA": CIA, "Meta": CIA, "Autograd": CIA},
    "autograd": {"CPU": "CPU", "CUDA": None, "Meta": None, "Autograd": "Autograd"},
    "autograd_cuda": {"CPU": None, "CUDA": None, "Meta": "Meta", "Autograd": "AutogradCUDA"},
    "schema_only": {"CPU": None, "CUDA": None, "Meta": None, "Autograd": None},
}


@pytest.fixture(scope="module")
def many_undefined(cc, build_root):
    """A library with 25 undefined symbols: the report lists 20 and counts all."""
    d = build_root / "many-undefined"
    d.mkdir(exist_ok=True)
    names = ["opm_gone_%02d" % i for i in range(25)]
    (d / "many.c").write_text("".join("extern void %s(void);\n" % n for n in names)
                              + "void use(void) {" + "".join(" %s();" % n for n in names) + " }\n")
    compile_or_fail([cc, "-shared", "-fPIC", "many.c", "-o", "libmany.so"], "many", cwd=d)
    return str(d / "libmany.so"), names


@pytest.fixture(scope="module")
def report(torch_info, op_library, c_libs, many_undefined, tmp_path_factory):
    """One run over every kind of library (the script takes several, as the harness passes them)."""
    missing = str(tmp_path_factory.mktemp("nofile") / "libnot-there.so")
    libs = [op_library, c_libs["undef"], c_libs["undef_rpath"], many_undefined[0], c_libs["needy"], c_libs["noisy"], missing, c_libs["plain"]]
    ops = list(EXPECTED_SERVED) + ["not_an_op"]
    out, r = run_json("load_library.py", "--namespace", OPS_NAMESPACE, "--ops", ",".join(ops), *libs)
    by_path = {lib["path"]: lib for lib in out["libraries"]}
    return {"out": out, "run": r, "libs": libs, "ops": ops, "missing": missing, "lib": by_path}


def test_report_shape(torch_info, report):
    out = report["out"]
    assert set(out) == TOP_KEYS
    assert out["torch"] == torch_info["version"] and out["torch_cuda"] == torch_info["cuda"]
    assert out["error"] is None and out["namespace"] == OPS_NAMESPACE
    # One entry per library, in the order given.
    assert [lib["path"] for lib in out["libraries"]] == report["libs"]
    for lib in out["libraries"]:
        # "registers": what a loaded library added, where it did; the rest, what one that lacks
        # symbols lacks (how many of them torch's, whose) and whether that makes it another
        # program's plugin.
        assert set(lib) - {"registers", "torch_undefined_count", "undefined_prefixes", "host_plugin"} == LIB_KEYS


def test_op_library_loads_and_tables(op_library, report):
    out, lib = report["out"], report["lib"][op_library]
    assert lib["loaded"] is True and lib["error_kind"] is None and lib["error"] is None
    assert lib["undefined"] == [] and lib["missing_libraries"] == []
    # Same nesting in both tables: {op: {key: ...}}, ops and keys in the order asked.
    assert list(out["ops"]) == report["ops"] and list(out["served_by"]) == report["ops"]
    for op, row in EXPECTED_SERVED.items():
        assert list(out["served_by"][op]) == KEYS
        assert out["served_by"][op] == row, op
        assert out["ops"][op] == {k: v is not None for k, v in row.items()}, op
    assert out["ops"]["not_an_op"] == {k: None for k in KEYS}
    assert out["served_by"]["not_an_op"] == {k: None for k in KEYS}
    # Where each CPU and CUDA kernel of its own was registered: its C++ source's line.
    assert set(out["registered_at"]["cpu_only"]) == {"CPU"}
    assert re.search(r"\.cpp:\d+$", out["registered_at"]["cpu_only"]["CPU"]), out["registered_at"]
    assert "schema_only" not in out["registered_at"] and "not_an_op" not in out["registered_at"]


@pytest.mark.parametrize("name", ["undef", "undef_rpath"])
def test_undefined_symbols_listed_and_demangled(c_libs, report, name):
    lib = report["lib"][c_libs[name]]
    assert lib["loaded"] is False and lib["error_kind"] == "undefined_symbol"
    assert "undefined symbol" in lib["error"]
    # All the missing ones (dlerror names only one), none that the helper found through the
    # library's RUNPATH / RPATH provides (helper_fn), none weak (opm_weak).
    symbols = {u["symbol"]: u["demangled"] for u in lib["undefined"]}
    assert symbols == {"opm_missing_c": "opm_missing_c", "_ZN3opm4goneEi": "opm::gone(int)"}
    assert lib["undefined_count"] == 2
    assert lib["missing_libraries"] == []


def test_a_compat_symbol_version_the_system_has_is_not_missing(c_libs, torch_info):
    """glibc binds __expf_finite@GLIBC_2.15 for the library though dlsym does not return it: only
    the symbol nothing defines is listed (it was "needs a newer C runtime: GLIBC_2.15" in trixie)."""
    out, _ = run_json("load_library.py", c_libs["compat"])
    lib = out["libraries"][0]
    assert lib["error_kind"] == "undefined_symbol"
    assert [u["symbol"] for u in lib["undefined"]] == ["opm_missing_c"]
    assert "system_runtime" not in lib


def test_undefined_symbols_capped_at_20(many_undefined, report):
    path, names = many_undefined
    lib = report["lib"][path]
    assert lib["error_kind"] == "undefined_symbol"
    assert lib["undefined_count"] == 25
    assert len(lib["undefined"]) == 20
    assert {u["symbol"] for u in lib["undefined"]} <= set(names)


def test_missing_library_named(c_libs, report):
    lib = report["lib"][c_libs["needy"]]
    assert lib["loaded"] is False and lib["error_kind"] == "missing_library"
    assert lib["missing_libraries"] == ["libopm_ghost.so.1"]
    assert lib["undefined"] == []


def test_no_such_file(c_libs, report):
    assert report["lib"][report["missing"]]["loaded"] is False
    assert report["lib"][report["missing"]]["error_kind"] == "other"
    assert report["lib"][report["missing"]]["error"] == "no such file"
    assert report["lib"][c_libs["plain"]]["loaded"] is True  # what follows a failure still loads


def test_load_time_output_goes_to_stderr(c_libs, report):
    assert report["lib"][c_libs["noisy"]]["loaded"] is True
    assert "opm-noisy: printed at load time" in report["run"].stderr
    assert "opm-noisy" not in report["run"].stdout


def test_namespace_without_ops_lists_or_leaves_empty(torch_info, op_library):
    out, _ = run_json("load_library.py", "--namespace", OPS_NAMESPACE, op_library)
    assert out["libraries"][0]["loaded"] is True
    if out["ops"]:  # this torch can list a namespace's ops
        assert sorted(out["ops"]) == sorted(EXPECTED_SERVED)
        assert out["served_by"] == {op: EXPECTED_SERVED[op] for op in out["served_by"]}
    else:  # torch 1.13: no _dispatch_get_all_op_names, so nothing to list
        assert out["served_by"] == {}


def test_no_library_at_all(torch_info):
    out, _ = run_json("load_library.py")
    assert out["libraries"] == [] and out["error"] == "no library to load (none built?)"


def test_find_walks_a_build_tree_without_namespace(torch_info, c_libs, tmp_path):
    tree = tmp_path / "build"
    for rel in ["lib/libplain.so", "lib/sub/libplain.so.1", "CMakeFiles/x/libplain.so", "_deps/libplain.so"]:
        (tree / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(c_libs["plain"], tree / rel)
    (tree / "lib" / "notes.txt").write_text("not a library")
    out, _ = run_json("load_library.py", "--find", tree)
    paths = [lib["path"] for lib in out["libraries"]]
    assert sorted(paths) == sorted(os.path.join(str(tree), p) for p in ["lib/libplain.so", "lib/sub/libplain.so.1"])
    assert all(lib["loaded"] for lib in out["libraries"])
    assert out["error"] is None
    assert out["namespace"] is None and out["ops"] == {} and out["served_by"] == {}


def test_one_library_under_each_name_of_its_soname_chain_is_judged_once(torch_info, c_libs, tmp_path):
    # A wheel holds copies (fairseq2n 0.8.1: libfairseq2n.so, .so.0, .so.0.8.0); a build tree, links.
    wheel, tree = tmp_path / "wheel", tmp_path / "tree"
    wheel.mkdir()
    tree.mkdir()
    for name in ["libchain.so", "libchain.so.0", "libchain.so.0.8.0"]:
        shutil.copy(c_libs["undef"], wheel / name)
    shutil.copy(c_libs["plain"], wheel / "libother.so")
    shutil.copy(c_libs["undef"], tree / "libchain.so.0.8.0")
    os.symlink("libchain.so.0.8.0", tree / "libchain.so.0")
    os.symlink("libchain.so.0", tree / "libchain.so")
    for root, expected in ((wheel, ["libchain.so", "libother.so"]), (tree, ["libchain.so"])):
        out, _ = run_json("load_library.py", "--find", root)
        assert [os.path.basename(lib["path"]) for lib in out["libraries"]] == expected
    # Where one name is the library's SONAME (what the package's other libraries NEED), that one.
    named = tmp_path / "named"
    named.mkdir()
    (named / "soname.c").write_text("int opm_soname(void) { return 3; }\n")
    compile_or_fail(["cc", "-shared", "-fPIC", "soname.c", "-o", "libsoname.so.0", "-Wl,-soname,libsoname.so.0"],
                    "soname", cwd=named)
    for name in ["libsoname.so", "libsoname.so.0.8.0"]:
        shutil.copy(named / "libsoname.so.0", named / name)
    out, _ = run_json("load_library.py", "--find", named)
    assert [os.path.basename(lib["path"]) for lib in out["libraries"]] == ["libsoname.so.0"]


def test_without_torch_reports_the_import_error(c_libs):
    # -S: no site-packages, so no torch; the script must still print its JSON and exit 0.
    out, _ = run_json("load_library.py", c_libs["plain"], python_args=["-S"], env=cell_env(PYTHONPATH=None))
    assert out["torch"] is None and out["error"].startswith("import torch: ModuleNotFoundError")
    assert out["libraries"] == [] and out["ops"] == {} and out["served_by"] == {}


def test_a_library_that_kills_its_process_is_reported_and_the_others_still_judged(torch_info, c_libs):
    # Each library is loaded in a process of its own: one that aborts at load (as two variants
    # of one package registering the same op do) is the finding, not the end of the report.
    out, r = run_json("load_library.py", c_libs["abort"], c_libs["plain"])
    assert r.returncode == 0
    died, plain = out["libraries"]
    assert died["loaded"] is False and died["error_kind"] == "crash" and died["signal"] == "SIGABRT"
    assert "the process died while loading it (SIGABRT)" in died["error"]
    assert plain["loaded"] is True


def test_a_copy_of_a_library_torchs_process_already_has_is_named_where_the_load_dies(torch_info, tmp_path):
    # nixl-cu12 1.5.1 grafts UCX (libucs-14c218c5.so.0.0.0); Debian's torch already has Debian's
    # libucs.so.0 (through Open MPI), and the second copy's initialiser aborts: "debug.c:1204
    # Assertion `!ucs_debug_initialized' failed". Here the process's copy comes by LD_PRELOAD.
    first, grafted = tmp_path / "system", tmp_path / "wheel"
    first.mkdir()
    grafted.mkdir()
    (first / "twin.c").write_text("int opm_twin_version(void) { return 1; }\n")
    compile_or_fail(["cc", "-shared", "-fPIC", "twin.c", "-o", "libopm_twin.so.0", "-Wl,-soname,libopm_twin.so.0"],
                    "the process's copy", cwd=first)
    (grafted / "twin.c").write_text(
        "#include <stdio.h>\n#include <stdlib.h>\n"
        "__attribute__((constructor)) static void opm_twin_init(void) {\n"
        "  fprintf(stderr, \"[host:1] twin.c:12 Assertion `!opm_twin_initialized' failed\\n\");\n"
        "  fflush(stderr);\n  abort();\n}\n")
    name = "libopm_twin-0123abcd.so.0.0.0"
    compile_or_fail(["cc", "-shared", "-fPIC", "twin.c", "-o", name, "-Wl,-soname,libopm_twin-0123abcd.so.0"],
                    "the package's copy", cwd=grafted)
    preloaded = str(first / "libopm_twin.so.0")
    out, _ = run_json("load_library.py", str(grafted / name), env=cell_env(LD_PRELOAD=preloaded))
    died = out["libraries"][0]
    assert died["error_kind"] == "crash" and died["signal"] == "SIGABRT", died
    assert died["error"].endswith("twin.c:12 Assertion `!opm_twin_initialized' failed"), died["error"]
    assert died["meets_loaded_copy"] == [{"own": name, "loaded": preloaded}], died
    alone, _ = run_json("load_library.py", str(grafted / name))
    assert alone["libraries"][0]["error_kind"] == "crash" and "meets_loaded_copy" not in alone["libraries"][0]


def test_a_backend_autoload_that_breaks_import_torch_is_named_with_its_cause():
    """torch (2.5 on) raises this, `from` the entry point's own error, when a package's
    torch.backends entry point fails at `import torch` (torch_npu without Ascend's CANN)."""
    import sys
    sys.path.insert(0, str(__import__("conftest").CELL))
    import load_library
    try:
        try:
            raise ImportError("libhccl.so: cannot open shared object file: No such file or directory")
        except ImportError as err:
            raise RuntimeError("Failed to load the backend extension: torch_npu. You can disable extension "
                               "auto-loading with TORCH_DEVICE_BACKEND_AUTOLOAD=0.") from err
    except RuntimeError as e:
        found = load_library.backend_autoload_failure(e)
    assert found == {"entry_point": "torch_npu",
                     "cause": "ImportError: libhccl.so: cannot open shared object file: No such file or directory"}
    assert load_library.backend_autoload_failure(RuntimeError("CUDA error: no kernel image")) is None


AVX512_CTOR = """
__attribute__((constructor)) static void uses_avx512(void) {
  /* what a library built for newer CPUs runs as it loads (intel-extension-for-transformers 1.4.2) */
  __asm__ volatile("vpxord %%zmm0, %%zmm0, %%zmm0" ::: "xmm0");
}
void opm_avx512_marker(void) {}
"""


@pytest.fixture(scope="module")
def avx512_libs(cc, build_root):
    """libavx512.so runs an AVX-512 instruction in a constructor; libneeds_avx512.so only NEEDs it."""
    d = build_root / "avx512"
    d.mkdir(exist_ok=True)
    (d / "avx512.c").write_text(AVX512_CTOR)
    (d / "needs.c").write_text("extern void opm_avx512_marker(void);\nvoid opm_use(void) { opm_avx512_marker(); }\n")
    compile_or_fail([cc, "-shared", "-fPIC", "avx512.c", "-o", "libavx512.so", "-Wl,-soname,libavx512.so"], "avx512", cwd=d)
    compile_or_fail([cc, "-shared", "-fPIC", "needs.c", "-o", "libneeds_avx512.so", "-L.", "-lavx512",
                     "-Wl,-rpath,$ORIGIN"], "needs_avx512", cwd=d)
    return d


def test_the_instruction_set_extensions_a_library_uses_are_read_from_its_code(avx512_libs, c_libs):
    import importlib.util
    import sys
    cell = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts", "cell")
    sys.path.insert(0, cell)  # its own imports (dispatcher, zygote) sit beside it
    spec = importlib.util.spec_from_file_location("load_library", os.path.join(cell, "load_library.py"))
    ll = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(ll)
    lib = str(avx512_libs / "libavx512.so")
    assert ll.extensions_this_cpu_lacks([lib], {"avx", "avx2"}) == ["AVX-512"]
    assert ll.extensions_this_cpu_lacks([lib], {"avx", "avx2", "avx512f"}) == [], "a CPU with AVX-512 lacks nothing"
    assert ll.extensions_this_cpu_lacks([c_libs["plain"]], {"avx"}) == [], "plain code uses no AVX-512"
    assert ll.extensions_this_cpu_lacks([lib], None) == [], "where the CPU's flags are unknown, nothing is claimed"


def test_a_library_dying_of_sigill_on_a_cpu_without_its_instructions_says_which(avx512_libs):
    flags = open("/proc/cpuinfo").read()
    if " avx512f" in flags:
        pytest.skip("this machine's CPU has AVX-512: the library loads here, and nothing dies of SIGILL")
    out, r = run_json("load_library.py", "--find", str(avx512_libs))
    assert r.returncode == 0
    by_name = {os.path.basename(lib["path"]): lib for lib in out["libraries"]}
    own, needs = by_name["libavx512.so"], by_name["libneeds_avx512.so"]
    assert own["signal"] == "SIGILL" and own["cpu_lacks"] == ["AVX-512"], own
    assert "its code uses AVX-512 instructions, which this machine's CPU does not have" in own["error"]
    assert needs["cpu_lacks"] == ["AVX-512"], needs
    assert "the code of libavx512.so, which it needs," in needs["error"], needs["error"]


def test_the_namespaces_a_library_registers_are_said_where_none_was_declared(torch_info, op_library, c_libs):
    # torch-cluster's sdist with no namespace declared: what its load registered is listed, so the
    # report never calls an op library a plain Python extension.
    out, r = run_json("load_library.py", op_library, c_libs["plain"])
    assert r.returncode == 0
    added = out["namespaces_added"]
    assert OPS_NAMESPACE in added, added
    assert "cpu_only" in added[OPS_NAMESPACE] and "aten" not in added, added
    declared, _ = run_json("load_library.py", "--namespace", OPS_NAMESPACE, op_library)
    assert "namespaces_added" not in declared, "a declared namespace is judged, not listed"


def test_namespaces_torch_registers_during_a_packages_import_are_not_the_packages(torch_info, tmp_path):
    # natten 0.21.7's import loads torch.distributed and flex attention, which register
    # c10d_functional, flex_lib, …: torch's own, named in none of the package's files.
    pkg = tmp_path / "site" / "opmatrix_nsimport"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text(
        "import torch\n"
        "lib = torch.library.Library('opmatrix_nsown', 'DEF')\n"
        "lib.define('twice(Tensor x) -> Tensor')\n"
        "other = torch.library.Library('opm' + 'other_owner', 'DEF')  # as torch's own modules do: not named here\n"
        "other.define('thrice(Tensor x) -> Tensor')\n")
    env = dict(os.environ, PYTHONPATH=str(tmp_path / "site"), PYTHONDONTWRITEBYTECODE="1")
    out, r = run_json("load_library.py", "--import", "opmatrix_nsimport", "--find", str(tmp_path / "site"), env=env)
    assert out["import"]["ok"] is True, out["import"]
    assert out["namespaces_added"] == {"opmatrix_nsown": ["twice"]}, out["namespaces_added"]


def test_a_namespace_torchs_own_python_defines_is_torchs_though_the_package_uses_it(tmp_path):
    # zentorch 2.14.0.1's import brings in torch modules that define prims and quantized_decomposed,
    # whose ops its graph passes call (torch.ops.quantized_decomposed.…): torch's namespaces.
    import sys
    from conftest import CELL
    sys.path.insert(0, str(CELL))
    import load_library
    fake_torch = tmp_path / "torch"
    (fake_torch / "ao").mkdir(parents=True)
    (fake_torch / "__init__.py").write_text("")
    (fake_torch / "ao" / "_decomposed.py").write_text(
        'from torch.library import Library\nquantized_decomposed_lib = Library("quantized_decomposed", "DEF")\n'
        'impl = Library("opm_fragment", "FRAGMENT")\n')
    torch = type("Torch", (), {"__file__": str(fake_torch / "__init__.py")})
    assert load_library.torch_defines(torch, {"quantized_decomposed", "zentorch", "opm_fragment"}) == {"quantized_decomposed"}
    assert load_library.torch_defines(torch, set()) == set()


def test_what_each_library_registers_when_loaded_is_said(torch_info, op_library):
    # executorch 1.5.1's import registers nothing; its libcustom_ops_aot_lib.so registers llama::…
    # when loaded: each library's own load is read in its own process.
    out, _ = run_json("load_library.py", op_library)
    (lib,) = out["libraries"]
    assert OPS_NAMESPACE in lib.get("registers", {}), lib
    assert "cpu_only" in lib["registers"][OPS_NAMESPACE]


@pytest.fixture(scope="module")
def plugins(cc, torch_info, build_root):
    """Three libraries lacking MPI's and a host program's symbols, as deepmd-kit's LAMMPS plugin
    does: one that needs nothing of torch's (another program's plugin), one that lacks a torch
    symbol too, one that NEEDs torch's libc10.so."""
    d = build_root / "plugins"
    d.mkdir(exist_ok=True)
    host = ("extern int MPI_Allgather(void);\nextern int MPI_Send(void);\n"
            "extern int _ZN9LAMMPS_NS4Pair4initEv(void); /* LAMMPS_NS::Pair::init() */\n")
    uses = "MPI_Allgather() + MPI_Send() + _ZN9LAMMPS_NS4Pair4initEv()"
    sources = {
        "lmpplugin": (host + "int opm_plugin(void) { return %s; }\n" % uses, []),
        "lacks_torch": (host + "extern int _ZN3c1013opm_not_thereEv(void); /* c10::opm_not_there(), no torch has it */\n"
                        "int opm_plugin(void) { return %s + _ZN3c1013opm_not_thereEv(); }\n" % uses, []),
        "needs_torch": (host + "int opm_plugin(void) { return %s; }\n" % uses,
                        ["-L" + p for p in torch_info["libs"]] + ["-Wl,-rpath," + p for p in torch_info["libs"]]
                        + ["-Wl,--no-as-needed", "-lc10"]),
    }
    out = {}
    for name, (src, flags) in sources.items():
        (d / (name + ".c")).write_text(src)
        compile_or_fail([cc, "-shared", "-fPIC", name + ".c", "-o", "lib%s.so" % name] + flags, name, cwd=d)
        out[name] = str(d / ("lib%s.so" % name))
    return out


def test_another_programs_plugin_is_told_from_a_torch_library(plugins):
    out, _ = run_json("load_library.py", plugins["lmpplugin"], plugins["lacks_torch"], plugins["needs_torch"])
    lib = {os.path.basename(l["path"]): l for l in out["libraries"]}
    plugin = lib["liblmpplugin.so"]
    assert plugin["error_kind"] == "undefined_symbol" and plugin["torch_undefined_count"] == 0
    assert plugin.get("host_plugin") is True
    assert plugin["undefined_prefixes"] == ["MPI_", "LAMMPS_NS"]
    # A torch symbol among what it lacks, or torch's library among what it needs: a torch library,
    # judged as one.
    assert lib["liblacks_torch.so"]["torch_undefined_count"] == 1 and not lib["liblacks_torch.so"].get("host_plugin")
    assert lib["libneeds_torch.so"]["torch_undefined_count"] == 0 and not lib["libneeds_torch.so"].get("host_plugin")


def test_the_libraries_an_import_compiles_with_cpp_extension_are_named(torch_info, tmp_path):
    """torchac 0.9.3's `import torchac` builds its backend with torch.utils.cpp_extension.load():
    the import measured that build in this torch, and the report names what it built (the judge's
    pass, not "its ops are not measured here"); an import that builds nothing names nothing."""
    if not shutil.which("ninja"):
        pytest.skip("ninja is not installed, which torch.utils.cpp_extension.load() runs (apt install ninja-build)")
    site = tmp_path / "site"
    for name, body in (("opm_jit_pkg", "import os\nfrom torch.utils.cpp_extension import load\n"
                                       "load(name='opm_jit_probe', sources=[os.path.join(os.path.dirname(__file__), "
                                       "'probe.cpp')], is_python_module=False)\n"),
                       ("opm_plain_pkg", "import torch  # noqa\n")):
        (site / name).mkdir(parents=True)
        (site / name / "__init__.py").write_text(body)
    (site / "opm_jit_pkg" / "probe.cpp").write_text('extern "C" int opm_jit_probe() { return 7; }\n')
    env = cell_env(PYTHONPATH=str(site), TORCH_EXTENSIONS_DIR=str(tmp_path / "ext"))
    out, r = run_json("load_library.py", "--import", "opm_jit_pkg", "--find", str(site / "opm_jit_pkg"), env=env)
    assert out["import"]["ok"], out["import"]
    assert [lib["name"] for lib in out["import"]["compiled_at_import"]] == ["opm_jit_probe.so"], r.stderr[-2000:]
    assert out["import"]["compiled_at_import"][0]["path"].startswith(os.path.realpath(str(tmp_path / "ext")) + "/")
    out, _ = run_json("load_library.py", "--import", "opm_plain_pkg", "--find", str(site / "opm_plain_pkg"), env=env)
    assert out["import"]["ok"] and "compiled_at_import" not in out["import"]


def test_a_needed_library_whose_constructor_dies_when_surveyed_leaves_the_loaders_own_refusal(torch_info, cc, tmp_path):
    """zentorch 2.14.0.1's _C NEEDs libzentorch.so, which lacks symbols of the torch beside it:
    RTLD_NOW refuses _C cleanly, as a user's import meets it; the symbol survey, which opens the
    NEEDED library lazily, runs its constructor, and that call of a missing function ended the
    process (a symbol lookup error: exit 127), reported as "the process died while loading it"."""
    (tmp_path / "b.c").write_text("extern void opm_absent(void);\n"
                                  "__attribute__((constructor)) static void init(void) { opm_absent(); }\n"
                                  "void opm_b(void) {}\n")
    (tmp_path / "a.c").write_text("extern void opm_b(void);\nvoid opm_a(void) { opm_b(); }\n")
    compile_or_fail([cc, "-shared", "-fPIC", "b.c", "-Wl,-z,lazy", "-o", "libopmb.so"], "libopmb", cwd=tmp_path)
    compile_or_fail([cc, "-shared", "-fPIC", "a.c", "-L.", "-lopmb", "-Wl,-rpath,$ORIGIN", "-o", "libopma.so"],
                    "libopma", cwd=tmp_path)
    out, r = run_json("load_library.py", str(tmp_path / "libopma.so"))
    lib = out["libraries"][0]
    assert lib["loaded"] is False and lib["error_kind"] == "undefined_symbol", (lib, r.stderr[-2000:])
    assert "opm_absent" in lib["error"], lib


def _distribution(folder, name, version, files):
    """A distribution as pip leaves it: NAME-VERSION.dist-info with METADATA and RECORD, and its files."""
    info = folder / ("%s-%s.dist-info" % (name.replace("-", "_"), version))
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: %s\nVersion: %s\n" % (name, version))
    (info / "RECORD").write_text("".join("%s,,\n" % f for f in files))
    for f in files:
        (folder / f).parent.mkdir(parents=True, exist_ok=True)
        (folder / f).write_bytes(b"\x7fELF")


def test_a_requirement_in_another_release_of_torchs_requirement_is_named(tmp_path):
    """mindie-turbo 2.0rc1 pins typing-extensions==4.12.2; torch 2.15's typing-extensions is 4.15.0,
    and torch imports a name 4.12.2 lacks. Found before torch's folder on sys.path, it is named with
    its modules; the same release, or one found after torch's folder, is not."""
    import sys
    sys.path.insert(0, str(__import__("conftest").CELL))
    import load_library
    venv, deps = tmp_path / "venv", tmp_path / "deps"
    _distribution(venv, "torch", "2.15.0", ["torch/__init__.py"])
    _distribution(venv, "typing_extensions", "4.15.0", ["typing_extensions.py"])
    _distribution(venv, "filelock", "3.20.0", ["filelock/__init__.py"])
    _distribution(deps, "typing_extensions", "4.12.2", ["typing_extensions.py"])
    _distribution(deps, "filelock", "3.20.0", ["filelock/__init__.py"])
    found = load_library.over_torch_distributions([str(deps), str(venv)], str(venv))
    assert found == [{"name": "typing_extensions", "version": "4.12.2", "over": "4.15.0",
                      "modules": ["typing_extensions"]}]
    assert load_library.over_torch_distributions([str(venv), str(deps)], str(venv)) == []


def test_a_requirement_that_installs_a_library_of_torchs_requirement_is_named(tmp_path):
    """bmtrain 1.0.1 beside torch 2.13: its requirement nvidia-nccl-cu11 installs
    nvidia/nccl/lib/libnccl.so.2, as torch's nvidia-nccl-cu13 does; import torch then fails for
    NCCL 2.29's ncclCommResume. The one found before torch's folder on sys.path is named over it."""
    import sys
    sys.path.insert(0, str(__import__("conftest").CELL))
    import load_library
    venv, deps, site = tmp_path / "venv", tmp_path / "deps", tmp_path / "site"
    _distribution(venv, "torch", "2.13.0", ["torch/lib/libtorch_cuda.so", "torch/__init__.py"])
    _distribution(venv, "nvidia-nccl-cu13", "2.29.7", ["nvidia/nccl/lib/libnccl.so.2"])
    _distribution(deps, "nvidia-nccl-cu11", "2.21.5", ["nvidia/nccl/lib/libnccl.so.2", "nvidia/nccl/include/nccl.h"])
    _distribution(site, "bmtrain", "1.0.1", ["bmtrain/C.cpython-311-x86_64-linux-gnu.so"])
    found = load_library.over_torch_libraries([str(site), str(deps), str(venv)], str(venv))
    assert found == [{"file": "nvidia/nccl/lib/libnccl.so.2", "by": "nvidia-nccl-cu11 2.21.5",
                      "over": "nvidia-nccl-cu13 2.29.7"}]
    # Found after torch's folder, torch's own is the one loaded: nothing to name.
    assert load_library.over_torch_libraries([str(venv), str(deps)], str(venv)) == []
    # A Python extension module written over another release's (mindie-turbo 2.0rc1 pins MarkupSafe
    # 3.0.2, torch's MarkupSafe is 3.0.4) is no library torch loads: not named.
    _distribution(venv, "MarkupSafe", "3.0.4", ["markupsafe/_speedups.cpython-311-x86_64-linux-gnu.so"])
    _distribution(deps, "MarkupSafe", "3.0.2", ["markupsafe/_speedups.cpython-311-x86_64-linux-gnu.so"])
    assert [o["by"] for o in load_library.over_torch_libraries([str(deps), str(venv)], str(venv))] == [
        "nvidia-nccl-cu11 2.21.5"]
