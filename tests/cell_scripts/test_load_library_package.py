"""scripts/cell/load_library.py: a package's libraries loaded as its users load them. Its core
library needs a sibling the package loads first (no RUNPATH to find it by: pip's layout, not the
loader's, puts them together), and an optional backend needs a system library that is not
installed here, which the package tries and skips at import. The load verdict is what a user of
the package gets: the core loads after its sibling; the backend is optional, its missing system
library named; torch's own libraries, loaded with torch, are never "missing"."""
import os

import pytest

from conftest import CELL, cell_python_json, compile_or_fail, run_json

INIT_PY = '''"""sibpkg: loads its core library (after its sibling), then tries its optional backend."""
import ctypes
import os

_lib = os.path.join(os.path.dirname(__file__), "lib")
ctypes.CDLL(os.path.join(_lib, "libsibcore.so"), mode=ctypes.RTLD_GLOBAL)
_core = ctypes.CDLL(os.path.join(_lib, "_sib.so"))
try:
    ctypes.CDLL(os.path.join(_lib, "_sib_av.so"))
    HAS_AV = True
except OSError:
    HAS_AV = False  # its AV backend needs libopm_absent_av.so.58, a system library


def answer():
    return _core.sib_answer()
'''


def lib_entry(path, missing=()):
    """One library as load_library.py reports it: loaded where nothing is missing."""
    return {"path": path, "loaded": not missing, "error_kind": "missing_library" if missing else "",
            "missing_libraries": list(missing)}


@pytest.fixture(scope="module")
def sib_site(torch_info, cc, build_root):
    site = build_root / "sib-site"
    lib = site / "sibpkg" / "lib"
    stub = build_root / "sib-stub"
    lib.mkdir(parents=True, exist_ok=True)
    stub.mkdir(exist_ok=True)
    (site / "sibpkg" / "__init__.py").write_text(INIT_PY)
    (lib / "core.c").write_text("int sib_core(void) { return 41; }\n")
    (lib / "sib.c").write_text("int sib_core(void);\nint sib_answer(void) { return sib_core() + 1; }\n")
    (lib / "av.c").write_text("int av_version(void);\nint sib_av(void) { return av_version(); }\n")
    (stub / "stub.c").write_text("int av_version(void) { return 58; }\n")
    compile_or_fail([cc, "-shared", "-fPIC", "core.c", "-o", "libsibcore.so", "-Wl,-soname,libsibcore.so"], "core", cwd=lib)
    compile_or_fail([cc, "-shared", "-fPIC", "sib.c", "-o", "_sib.so", "-L.", "-lsibcore"], "_sib", cwd=lib)
    compile_or_fail([cc, "-shared", "-fPIC", str(stub / "stub.c"), "-o", str(stub / "libopm_absent_av.so.58"),
                     "-Wl,-soname,libopm_absent_av.so.58"], "the system library's stand-in")
    compile_or_fail([cc, "-shared", "-fPIC", "av.c", "-o", "_sib_av.so", str(stub / "libopm_absent_av.so.58")],
                    "_sib_av", cwd=lib)
    for f in ("core.c", "sib.c", "av.c"):
        (lib / f).unlink()
    (stub / "libopm_absent_av.so.58").unlink()  # not installed here: the backend is optional
    return site


def test_a_package_loads_as_its_users_load_it(sib_site):
    env = dict(os.environ, PYTHONPATH=str(sib_site), PYTHONDONTWRITEBYTECODE="1")
    out, _ = run_json("load_library.py", "--import", "sibpkg", "--find", str(sib_site / "sibpkg"), env=env)
    assert out["import"]["ok"] is True, out["import"]
    libs = {os.path.basename(lib["path"]): lib for lib in out["libraries"]}
    assert libs["libsibcore.so"]["loaded"] is True
    core = libs["_sib.so"]
    assert core["loaded"] is True, core
    assert [os.path.basename(p) for p in core["loaded_after"]] == ["libsibcore.so"]
    av = libs["_sib_av.so"]
    assert av["loaded"] is False and av["error_kind"] == "missing_library"
    assert av["missing_libraries"] == ["libopm_absent_av.so.58"]
    assert av["optional"] is True


def test_a_library_already_loaded_is_never_missing(cc, build_root):
    """A NEEDed soname this process has loaded already (as torch's libraries are once torch is
    imported) is found by the loader, whatever ldd says from the file alone: a relative RPATH
    into torch's folder that does not resolve from where pip put a package names no "missing"."""
    d = build_root / "already-loaded"
    (d / "elsewhere").mkdir(parents=True, exist_ok=True)
    (d / "elsewhere" / "maker.c").write_text("int made(void) { return 1; }\n")
    (d / "user.c").write_text("int made(void);\nint use(void) { return made(); }\n")
    compile_or_fail([cc, "-shared", "-fPIC", "elsewhere/maker.c", "-o", "elsewhere/libopm_loaded.so",
                     "-Wl,-soname,libopm_loaded.so"], "maker", cwd=d)
    compile_or_fail([cc, "-shared", "-fPIC", "user.c", "-o", "libuser.so", "elsewhere/libopm_loaded.so"], "user", cwd=d)
    code = ("import json, sys; sys.path.insert(0, %r); import load_library as L\n"
            "dl = L.libc(); before = L.missing_libraries(dl, %r)\n"
            "dl.dlopen(%r.encode(), L.RTLD_NOW | L.RTLD_GLOBAL)\n"
            "print(json.dumps([before, L.missing_libraries(dl, %r), L.load_one(dl, %r)['loaded']]))"
            % (str(CELL), str(d / "libuser.so"), str(d / "elsewhere" / "libopm_loaded.so"), str(d / "libuser.so"),
               str(d / "libuser.so")))
    before, after, loaded = cell_python_json(code, "cannot run load_library.py")
    assert before == ["libopm_loaded.so"]
    assert after == [] and loaded is True


def test_a_cuda_runtime_of_another_major_is_never_an_optional_backend():
    # xformers 0.0.28.post3's _C.so needs libcudart.so.12 in a CUDA 13 torch: the CUDA it was
    # built for, not a system library an optional backend tries.
    import sys
    sys.path.insert(0, str(CELL))
    import load_library
    libs = [{"path": "/x/_C.so", "error_kind": "missing_library", "missing_libraries": ["libcudart.so.12"]},
            {"path": "/x/_av.so", "error_kind": "missing_library", "missing_libraries": ["libavutil.so.58"]}]
    load_library.mark_optional_backends(libs, loaded_by_import=set(), own_names=set())
    assert [lib["optional"] for lib in libs] == [False, True]


def test_a_library_that_needs_an_optional_sibling_is_optional_too():
    # torchaudio 2.5.1: _torio_ffmpeg6.so needs libtorio_ffmpeg6.so (the package's), which needs
    # libavutil.so.58 (a system library); a library needing a sibling that loads is no backend.
    import sys
    sys.path.insert(0, str(CELL))
    import load_library
    libs = [{"path": "/x/_torio_ffmpeg6.so", "error_kind": "missing_library",
             "missing_libraries": ["libtorio_ffmpeg6.so", "libavutil.so.58"]},
            {"path": "/x/_torchaudio_sox.so", "error_kind": "missing_library", "missing_libraries": ["libtorchaudio_sox.so"]},
            {"path": "/x/libtorchaudio_sox.so", "error_kind": "missing_library", "missing_libraries": ["libsox.so"]},
            {"path": "/x/libtorio_ffmpeg6.so", "error_kind": "missing_library", "missing_libraries": ["libavutil.so.58"]},
            {"path": "/x/_core_user.so", "error_kind": "missing_library", "missing_libraries": ["libcore.so"]},
            {"path": "/x/libcore.so", "error_kind": "", "missing_libraries": []}]
    own = {"_torio_ffmpeg6.so", "libtorio_ffmpeg6.so", "_torchaudio_sox.so", "libtorchaudio_sox.so", "_core_user.so",
           "libcore.so"}
    load_library.mark_optional_backends(libs, loaded_by_import=set(), own_names=own)
    assert [lib["optional"] for lib in libs] == [True, True, True, True, False, False]


def test_without_a_working_import_only_what_nothing_of_the_package_needs_may_be_optional(cc, build_root):
    # nixl-cu13 1.5.1 on a machine without a GPU: its import fails (its extension links
    # libcuda.so.1); its backend plugins lack the Azure SDK, which nothing of it needs. A library a
    # sibling NEEDs (one that fails otherwise: undefined symbols) is no backend, whatever it lacks.
    import sys
    sys.path.insert(0, str(CELL))
    import load_library
    d = build_root / "optional-unless-imported"
    absent = build_root / "optional-unless-imported-absent"
    shared_library(cc, absent, "opm_absent_sdk", "int opm_sdk(void) { return 1; }\n")
    shared_library(cc, d, "plugin_blob", "extern int opm_sdk(void);\nint opm_blob(void) { return opm_sdk(); }\n",
                   "-L" + str(absent), "-Wl,--no-as-needed", "-lopm_absent_sdk")
    shared_library(cc, d, "needed_core", "extern int opm_sdk(void);\nint opm_core(void) { return opm_sdk(); }\n",
                   "-L" + str(absent), "-Wl,--no-as-needed", "-lopm_absent_sdk")
    shared_library(cc, d, "user", "extern int opm_core(void);\nint opm_user(void) { return opm_core(); }\n",
                   "-L.", "-Wl,--no-as-needed", "-lneeded_core")
    libs = [{"path": str(d / "libplugin_blob.so"), "error_kind": "missing_library",
             "missing_libraries": ["libopm_absent_sdk.so"]},
            {"path": str(d / "libneeded_core.so"), "error_kind": "missing_library",
             "missing_libraries": ["libopm_absent_sdk.so"]},
            {"path": str(d / "libuser.so"), "error_kind": "undefined_symbol", "missing_libraries": []}]
    own = {"libplugin_blob.so", "libneeded_core.so", "libuser.so"}
    libs.append(dict(libs[0], path=str(d / "copy" / "libplugin_blob.so")))  # a second copy at another path
    load_library.mark_optional_backends(libs, loaded_by_import=set(), own_names=own, key="optional_unless_imported")
    assert [lib["optional_unless_imported"] for lib in libs] == [True, False, False, True]
    assert all("optional" not in lib for lib in libs)


def test_builds_for_other_runtimes_beside_the_one_the_package_loads_are_variants():
    # bitsandbytes 0.50: one wheel holds libbitsandbytes_cpu.so, _cuda118.so ... _cuda126.so and
    # _rocm64.so, and loads the one its runtime fits. Next to a CPU torch the import loads _cpu.so;
    # the CUDA and ROCm builds, which lack their runtime's libraries here, are variants for other
    # runtimes, not breaks. A library the package needs with torch's CPU libraries missing is not.
    import sys
    sys.path.insert(0, str(CELL))
    import load_library
    libs = [lib_entry("/x/libbitsandbytes_cpu.so"),
            lib_entry("/x/libbitsandbytes_cuda121.so", ["libcudart.so.12", "libcublas.so.12"]),
            lib_entry("/x/libbitsandbytes_rocm64.so", ["libamdhip64.so.6"]),
            lib_entry("/x/libother_cuda.so", ["libtorch_cpu.so"])]
    load_library.mark_optional_backends(libs, loaded_by_import={"/x/libbitsandbytes_cpu.so"}, own_names=set())
    load_library.mark_runtime_variants({os.path.basename(lib["path"]): lib for lib in libs}, {"/x/libbitsandbytes_cpu.so"})
    assert [lib.get("variant_of") for lib in libs] == [None, "libbitsandbytes_cpu.so", "libbitsandbytes_cpu.so", None]
    assert libs[2]["optional"] is False, "a variant is named as such, not as an optional backend"


def test_builds_per_version_of_a_system_library_beside_the_one_the_import_loaded_are_variants():
    # torchcodec 0.4.0 beside bookworm's FFmpeg 5: its import loads _core5 and _custom_ops5; the
    # builds for FFmpeg 4 and 7 lack those FFmpegs' libraries (custom_ops7 its core7 too): builds
    # for another FFmpeg, not optional backends missing. One lacking torch's library stays as it is,
    # and so does a numbered library none of whose siblings the import loaded.
    import sys
    sys.path.insert(0, str(CELL))
    import load_library
    libs = [lib_entry("/x/libtorchcodec_core5.so"),
            lib_entry("/x/libtorchcodec_custom_ops5.so"),
            lib_entry("/x/libtorchcodec_core4.so", ["libavutil.so.56", "libavcodec.so.58"]),
            lib_entry("/x/libtorchcodec_custom_ops7.so", ["libavutil.so.59", "libtorchcodec_core7.so"]),
            lib_entry("/x/libtorchcodec_core6.so", ["libtorch_cpu.so"]),
            lib_entry("/x/libtorio_ffmpeg6.so", ["libavutil.so.58"])]
    by_import = {"/x/libtorchcodec_core5.so", "/x/libtorchcodec_custom_ops5.so"}
    load_library.mark_optional_backends(libs, loaded_by_import=by_import, own_names={os.path.basename(l["path"]) for l in libs})
    load_library.mark_system_library_builds(libs, by_import)
    assert [lib.get("variant_of") for lib in libs] == [
        None, None, "libtorchcodec_core5.so", "libtorchcodec_custom_ops5.so", None, None]
    assert libs[2]["optional"] is False and libs[3]["optional"] is False
    assert libs[5]["optional"] is True, "a numbered library whose siblings did not load stays an optional backend"


def test_builds_for_other_torch_versions_beside_the_one_the_package_loads_are_variants():
    # dgl 2.1.0 ships libgraphbolt_pytorch_2.0.0.so ... _2.2.1.so and loads the one of its torch:
    # the others' undefined symbols are another torch's, by design.
    import sys
    sys.path.insert(0, str(CELL))
    import load_library
    libs = [lib_entry("/x/libgraphbolt_pytorch_2.2.1.so"),
            {"path": "/x/libgraphbolt_pytorch_2.0.0.so", "loaded": False, "error_kind": "undefined_symbol",
             "missing_libraries": []},
            {"path": "/x/libother.so", "loaded": False, "error_kind": "undefined_symbol", "missing_libraries": []}]
    load_library.mark_runtime_variants({os.path.basename(lib["path"]): lib for lib in libs},
                                       {"/x/libgraphbolt_pytorch_2.2.1.so"})
    assert [lib.get("variant_of") for lib in libs] == [None, "libgraphbolt_pytorch_2.2.1.so", None]


@pytest.mark.parametrize("torch_version, expected", [
    # none fits torch 2.15: each build says which torch it is for, none is a variant of another
    ("2.15.0+cu132", [("2.0.0", None), ("2.2.1", None)]),
    # 2.2.1 fits: the other is its variant for another torch; the fitting one is judged as it is
    ("2.2.1+cpu", [("2.0.0", "libgraphbolt_pytorch_2.2.1.so"), (None, None)]),
])
def test_builds_per_torch_version_say_which_torch_they_are_for(torch_version, expected):
    # dgl 2.1.0 ships libgraphbolt_pytorch_2.0.0.so ... _2.2.1.so; its import may fail before it
    # loads any (its `import dgl` in torch 2.15), so the marks come from the names alone.
    import sys
    sys.path.insert(0, str(CELL))
    import load_library
    libs = [{"path": "/x/libgraphbolt_pytorch_2.0.0.so", "loaded": False, "error_kind": "undefined_symbol"},
            {"path": "/x/libgraphbolt_pytorch_2.2.1.so", "loaded": False, "error_kind": "undefined_symbol"},
            {"path": "/x/libdgl.so", "loaded": True}]
    load_library.mark_other_torch_builds(libs, torch_version)
    assert [(lib.get("for_torch"), lib.get("variant_of")) for lib in libs[:2]] == expected
    assert all(lib.get("build_of") == "libgraphbolt" for lib in libs[:2] if lib.get("for_torch"))
    assert "for_torch" not in libs[2]


def test_builds_per_torch_name_every_torch_they_are_for_and_whether_the_import_used_one():
    # torch-c-dlpack-ext 0.1.5 beside torch 2.14: builds for 2.4 ... 2.9; the older ones load alone,
    # the 2.9 one does not; its import works and maps none of them (torch has the API natively).
    import sys
    sys.path.insert(0, str(CELL))
    import load_library
    names = ["libaddon_torch24-cpu.so", "libaddon_torch210-cpu.so", "libaddon_torch29-cpu.so", "libcore.so"]
    libs = [{"path": "/x/" + n, "loaded": n != "libaddon_torch29-cpu.so", "error_kind": ""} for n in names]
    load_library.mark_other_torch_builds(libs, "2.14.1")
    assert libs[2]["for_torch"] == "2.9" and libs[2]["builds_for"] == ["2.4", "2.9", "2.10"]
    load_library.mark_builds_unused_by_import(libs, {"/x/libcore.so"})
    assert libs[2]["unused_by_import"] is True
    # An import that mapped one of the builds used them: not marked.
    del libs[2]["unused_by_import"]
    load_library.mark_builds_unused_by_import(libs, {"/x/libaddon_torch24-cpu.so"})
    assert "unused_by_import" not in libs[2]


def test_a_build_per_string_abi_beside_the_one_the_import_loaded_is_a_variant():
    # torchpipe 0.2.25 ships torchpipe_opencv-abiflag0.so and -abiflag1.so and loads the one of
    # torch's std::string ABI; the other, which lacks what only its own ABI's libraries give, is unused.
    import sys
    sys.path.insert(0, str(CELL))
    import load_library
    libs = [lib_entry("/x/torchpipe_opencv-abiflag1.so", ["libomniback.so"]),
            lib_entry("/x/torchpipe_opencv-abiflag0.so", ["libomniback.so"])]
    load_library.mark_runtime_variants({os.path.basename(lib["path"]): lib for lib in libs},
                                       {"/x/torchpipe_opencv-abiflag1.so"})
    assert [lib.get("variant_of") for lib in libs] == [None, "torchpipe_opencv-abiflag1.so"]


def test_a_library_the_import_loaded_is_loaded_by_import_whatever_it_does_alone(tmp_path):
    # torchpipe 0.2.25 in torch 2.12: its torchpipe_core-torch212-cpu-abiflag1.so does not load
    # alone (its requirement's libomniback.so lacks libtvm_ffi.so's symbols until `import tvm_ffi`
    # has loaded that one); its import loads both. One the import did not map stays as it is.
    import sys
    sys.path.insert(0, str(CELL))
    import load_library
    (tmp_path / "lib").mkdir()
    (tmp_path / "core.so").write_bytes(b"")
    os.symlink(tmp_path / "core.so", tmp_path / "lib" / "core-link.so")
    libs = [{"path": str(tmp_path / "lib" / "core-link.so"), "loaded": False, "error_kind": "missing_library"},
            {"path": str(tmp_path / "other.so"), "loaded": False, "error_kind": "missing_library"},
            {"path": str(tmp_path / "loads.so"), "loaded": True}]
    load_library.mark_loaded_by_import(libs, [str(tmp_path / "core.so"), str(tmp_path / "loads.so")])
    assert [lib.get("loaded_by_import") for lib in libs] == [True, None, None]


def test_builds_per_torch_version_and_device_named_compactly_are_variants():
    # torch-c-dlpack-ext 0.1.5 ships libtorch_c_dlpack_addon_torch24-cpu.so ... _torch29-cuda.so and
    # loads the one for torch.__version__ (major and minor run together) and the device it finds.
    # In a CPU torch 2.6: torch26-cpu loads; torch26-cuda (no libtorch_cuda.so here) is the other
    # device's; torch25-* are another torch's.
    import sys
    sys.path.insert(0, str(CELL))
    import load_library
    assert load_library.torch_build_version("libtorch_c_dlpack_addon_torch26-cpu.so") == "2.6"
    assert load_library.torch_build_version("libx_torch210-cuda.so") == "2.10"
    libs = [{"path": "/x/libtorch_c_dlpack_addon_torch26-cpu.so", "loaded": True},
            lib_entry("/x/libtorch_c_dlpack_addon_torch26-cuda.so", ["libtorch_cuda.so"]),
            {"path": "/x/libtorch_c_dlpack_addon_torch25-cpu.so", "loaded": False, "error_kind": "undefined_symbol"}]
    load_library.mark_other_torch_builds(libs, "2.6.0+debian")
    assert [lib.get("variant_of") for lib in libs] == [None, "libtorch_c_dlpack_addon_torch26-cpu.so",
                                                        "libtorch_c_dlpack_addon_torch26-cpu.so"]
    assert libs[2]["for_torch"] == "2.5" and "for_torch" not in libs[1]


def shared_library(cc, folder, name, source, *flags, map_text=None):
    """lib<name>.so built in `folder` from C `source` (and ver.map from `map_text`), with `flags`."""
    folder.mkdir(exist_ok=True)
    (folder / (name + ".c")).write_text(source)
    if map_text is not None:
        (folder / "ver.map").write_text(map_text)
    compile_or_fail([cc, "-shared", "-fPIC", name + ".c", "-o", "lib%s.so" % name, "-Wl,-soname,lib%s.so" % name]
                    + list(flags), "lib" + name, cwd=folder)


def test_a_library_that_loads_as_a_dependency_of_one_that_loads_says_so(cc, build_root):
    # IPEX 2.8.0: libintel-ext-pt-python.so alone lacks torch::jit::toPyObject (it names no
    # libtorch_python.so); its _C.so needs it and libtorch_python.so, and loads. Here: libdep.so
    # uses a symbol of libprov.so without naming it; libmain.so needs both.
    d = build_root / "loaded-as-dependency"
    shared_library(cc, d, "prov", "int opm_provided(void) { return 1; }\n")
    shared_library(cc, d, "dep", "extern int opm_provided(void);\nint opm_dep(void) { return opm_provided(); }\n")
    shared_library(cc, d, "main", "extern int opm_dep(void);\nint opm_main(void) { return opm_dep(); }\n",
                   "-L.", "-Wl,--no-as-needed", "-ldep", "-lprov", "-Wl,-rpath,$ORIGIN")
    out, _ = run_json("load_library.py", "--find", str(d))
    libs = {os.path.basename(lib["path"]): lib for lib in out["libraries"]}
    assert libs["libmain.so"]["loaded"] and libs["libprov.so"]["loaded"]
    assert libs["libdep.so"]["loaded"] is False and libs["libdep.so"]["error_kind"] == "undefined_symbol"
    assert libs["libdep.so"]["loaded_as_dependency_of"] == "libmain.so"
    assert "loaded_as_dependency_of" not in libs["libprov.so"]


def test_a_library_whose_needed_sibling_does_not_load_names_it(cc, build_root):
    # IPEX 2.8.0 beside another torch: _C.so lacks InitIpexBindings, which the sibling it NEEDs
    # (libintel-ext-pt-python.so) defines, and that one does not load for want of a symbol no
    # library here has. Here: libpy.so lacks opm_absent; libc_ext.so needs libpy.so's opm_init.
    d = build_root / "needs-failing-sibling"
    shared_library(cc, d, "py", "extern int opm_absent(void);\nint opm_init(void) { return opm_absent(); }\n")
    shared_library(cc, d, "c_ext", "extern int opm_init(void);\nint opm_c(void) { return opm_init(); }\n",
                   "-L.", "-Wl,--no-as-needed", "-lpy", "-Wl,-rpath,$ORIGIN")
    out, _ = run_json("load_library.py", "--find", str(d))
    libs = {os.path.basename(lib["path"]): lib for lib in out["libraries"]}
    assert not libs["libc_ext.so"]["loaded"] and not libs["libpy.so"]["loaded"]
    assert libs["libc_ext.so"]["needs_failing"] == ["libpy.so"]
    assert "needs_failing" not in libs["libpy.so"]


def test_a_library_that_lacks_what_the_failing_sibling_needing_it_defines_follows_that_one(cc, build_root):
    # torch-npu 2.4.0 without Ascend's CANN: libnpu_profiler.so alone lacks c10_npu::…, which
    # libtorch_npu.so defines and which NEEDs it back; libtorch_npu.so lacks CANN's libhccl.so.
    # Here libprof.so lacks opm_core_log (libcore.so's) and opm_vendor_log; libcore.so NEEDs
    # libprof.so and a vendor library that is not installed.
    d = build_root / "dependency-of-failing"
    vendor = build_root / "dependency-of-failing-vendor"
    shared_library(cc, vendor, "opm_absent_vendor", "int opm_vendor_log(void) { return 1; }\n")
    shared_library(cc, d, "prof", "extern int opm_core_log(void);\nextern int opm_vendor_log(void);\n"
                   "int opm_prof(void) { return opm_core_log() + opm_vendor_log(); }\n")
    shared_library(cc, d, "core", "extern int opm_prof(void);\nint opm_core_log(void) { return 2; }\n"
                   "int opm_core(void) { return opm_prof(); }\n",
                   "-L.", "-L" + str(vendor), "-Wl,--no-as-needed", "-lprof", "-lopm_absent_vendor", "-Wl,-rpath,$ORIGIN")
    (vendor / "libopm_absent_vendor.so").unlink()  # not installed here
    out, _ = run_json("load_library.py", "--find", str(d))
    libs = {os.path.basename(lib["path"]): lib for lib in out["libraries"]}
    assert libs["libcore.so"]["error_kind"] == "missing_library", libs["libcore.so"]
    prof = libs["libprof.so"]
    assert prof["error_kind"] == "undefined_symbol", prof
    assert prof["dependency_of_failing"] == ["libcore.so"] and prof["defined_by_them"] == 1, prof
    assert "dependency_of_failing" not in libs["libcore.so"]


def test_a_library_that_finds_its_sibling_once_loaded_names_what_it_lacks_then(cc, build_root):
    # executorch 1.3.1 beside torch 2.11: libcustom_ops_aot_lib.so NEEDs _portable_lib (no RUNPATH
    # to it; found by its soname once the package has loaded it), then lacks a torch symbol. Here
    # libopm_ops.so NEEDs libopm_portable.so (in another folder of the package) and opm_absent.
    d = build_root / "found-once-loaded"
    d.mkdir(exist_ok=True)
    shared_library(cc, d / "pybindings", "opm_portable", "int opm_portable(void) { return 1; }\n")
    shared_library(cc, d / "custom_ops", "opm_ops",
                   "extern int opm_portable(void);\nextern int opm_absent(void);\n"
                   "int opm_ops(void) { return opm_portable() + opm_absent(); }\n",
                   "-L../pybindings", "-Wl,--no-as-needed", "-lopm_portable", "-Wl,--unresolved-symbols=ignore-all")
    out, _ = run_json("load_library.py", "--find", str(d))
    libs = {os.path.basename(lib["path"]): lib for lib in out["libraries"]}
    assert libs["libopm_portable.so"]["loaded"] is True
    ops = libs["libopm_ops.so"]
    assert ops["loaded"] is False and ops["error_kind"] == "undefined_symbol", ops
    assert [u["symbol"] for u in ops["undefined"]] == ["opm_absent"], ops
    assert ops["found_siblings_first"] is True


def test_a_symbol_of_a_newer_system_runtime_is_marked_as_the_systems(cc, build_root):
    # A library built against a newer libstdc++/glibc than the system's: its missing symbols carry
    # the runtime's version (std::ios_base_library_init@GLIBCXX_3.4.32 in a bookworm image). Here a
    # stub stands in for the runtime: built with opm_newer@GLIBC_99.0, then without it.
    d = build_root / "system-runtime"
    stub = "int opm_newer(void) { return 1; }\nint opm_other(void) { return 2; }\n"
    shared_library(cc, d, "stub", stub, "-Wl,--version-script=ver.map",
                   map_text="GLIBC_99.0 { global: opm_newer; local: *; };\n")
    shared_library(cc, d, "user", "extern int opm_newer(void);\nint opm_user(void) { return opm_newer(); }\n",
                   "-L.", "-Wl,--no-as-needed", "-lstub", "-Wl,-rpath,$ORIGIN")
    # The system's runtime now: the same library without that version.
    shared_library(cc, d, "stub", stub, "-Wl,--version-script=ver.map",
                   map_text="GLIBC_1.0 { global: opm_other; local: *; };\n")
    out, _ = run_json("load_library.py", str(d / "libuser.so"))
    lib = out["libraries"][0]
    assert lib["loaded"] is False and lib["error_kind"] == "undefined_symbol", lib
    assert lib["system_runtime"]["versions"] == ["GLIBC_99.0"], lib
    assert lib["system_runtime"]["count"] == 1 and lib["system_runtime"]["symbols"] == ["opm_newer"]


@pytest.mark.parametrize("torch_cuda, fitting", [("12.1", "cu12"), ("13.0", "cu13")])
def test_builds_named_per_cuda_major_that_lack_only_the_driver_still_tell_the_others_apart(torch_cuda, fitting):
    # torch-memory-saver 0.0.9.post1: _cu12 and _cu13 builds of each hook library, chosen by
    # torch.version.cuda's major; both link the driver's libcuda.so.1, so neither loads without a
    # GPU. The one named for this runtime's CUDA major is this runtime's, the other a variant for
    # another one, not "built for CUDA 13" red.
    import sys
    sys.path.insert(0, str(CELL))
    import load_library
    libs = [{"path": "/x/tms_preload_cu12.abi3.so", "loaded": False, "error_kind": "missing_library",
             "missing_libraries": ["libcuda.so.1"] + (["libcudart.so.12"] if fitting == "cu13" else [])},
            {"path": "/x/tms_preload_cu13.abi3.so", "loaded": False, "error_kind": "missing_library",
             "missing_libraries": ["libcuda.so.1"] + (["libcudart.so.13"] if fitting == "cu12" else [])}]
    load_library.mark_runtime_variants({os.path.basename(lib["path"]): lib for lib in libs}, [], torch_cuda)
    other = "cu13" if fitting == "cu12" else "cu12"
    by = {os.path.basename(lib["path"]): lib for lib in libs}
    assert by["tms_preload_%s.abi3.so" % other].get("variant_of") == "tms_preload_%s.abi3.so" % fitting
    assert "variant_of" not in by["tms_preload_%s.abi3.so" % fitting]
    # A build for another CUDA with none named for this one stays what it is (sgl-kernel's red).
    alone = [dict(libs[1])]
    alone[0].pop("variant_of", None)
    load_library.mark_runtime_variants({"tms_preload_cu13.abi3.so": alone[0]}, [], "12.1")
    assert "variant_of" not in alone[0]


def test_of_byte_identical_copies_the_name_that_says_its_runtime_stands(tmp_path):
    # torch-memory-saver 0.0.9.post1 ships _hook_mode_preload.abi3.so and the same bytes as
    # _hook_mode_preload_cu12.abi3.so, the name it loads.
    import sys
    sys.path.insert(0, str(CELL))
    import load_library
    for name in ("hook_preload.abi3.so", "hook_preload_cu12.abi3.so"):
        (tmp_path / name).write_bytes(b"\x7fELF same bytes")
    assert [os.path.basename(p) for p in load_library.find_libraries(str(tmp_path))] == ["hook_preload_cu12.abi3.so"]


def test_builds_for_other_runtimes_are_variants_even_where_the_import_failed_first():
    # bitsandbytes 0.50.2 in torch 2.3.1 (CUDA 12.1): its import fails (torch.library.register_fake
    # is torch 2.4's) before it loads a build; the _cuda121 build loads alone, so _cuda118 (CUDA
    # 11's runtime) and _rocm64 (ROCm's) are builds for other runtimes, not reds of this one.
    import sys
    sys.path.insert(0, str(CELL))
    import load_library
    libs = [lib_entry("/x/libbitsandbytes_cpu.so"),
            lib_entry("/x/libbitsandbytes_cuda118.so", ["libcudart.so.11.0"]),
            lib_entry("/x/libbitsandbytes_cuda121.so"),
            lib_entry("/x/libbitsandbytes_rocm64.so", ["libhipblas.so.2"])]
    load_library.mark_runtime_variants({os.path.basename(lib["path"]): lib for lib in libs}, [], "12.1")
    assert [lib.get("variant_of") for lib in libs] == [None, "libbitsandbytes_cuda121.so", None,
                                                       "libbitsandbytes_cuda121.so"]


def test_builds_for_other_cudas_and_accelerators_are_variants_even_where_they_load():
    # bitsandbytes 0.50.2 in torch 2.1.2 (CUDA 12.1): _cuda121 is this runtime's build; _cuda124 and
    # _cuda126 load too (CUDA 12 is minor-compatible) but the package never picks them here, and
    # _xpu2025 needs Intel's oneAPI runtime: all three are builds for other runtimes (their
    # missing sm_100 or oneAPI libraries are not reds of this one). _cpu.so, which the package
    # loads on a machine without a GPU, stays judged; a library of another name stays judged.
    import sys
    sys.path.insert(0, str(CELL))
    import load_library
    libs = [lib_entry("/x/libbitsandbytes_cpu.so"),
            lib_entry("/x/libbitsandbytes_cuda121.so"),
            lib_entry("/x/libbitsandbytes_cuda124.so"),
            lib_entry("/x/libbitsandbytes_cuda126.so"),
            lib_entry("/x/libbitsandbytes_xpu2025.so", ["libsvml.so", "libsycl.so.8"]),
            {"path": "/x/libother_cuda124.so", "loaded": False, "error_kind": "undefined_symbol", "missing_libraries": []}]
    load_library.mark_runtime_variants({os.path.basename(lib["path"]): lib for lib in libs},
                                       {"/x/libbitsandbytes_cpu.so"}, "12.1")
    assert [lib.get("variant_of") for lib in libs] == [None, None] + ["libbitsandbytes_cuda121.so"] * 3 + [None]


def test_an_xpu_build_beside_the_cpu_build_of_a_cpu_torch_is_a_variant():
    # bitsandbytes 0.50.2 in Debian's CPU torch: the import loads _cpu.so; _xpu2025.so lacks
    # Intel's oneAPI libraries, which only an XPU machine has.
    import sys
    sys.path.insert(0, str(CELL))
    import load_library
    libs = [lib_entry("/x/libbitsandbytes_cpu.so"),
            lib_entry("/x/libbitsandbytes_xpu2026.so", ["libsvml.so", "libsycl.so.9"])]
    load_library.mark_runtime_variants({os.path.basename(lib["path"]): lib for lib in libs}, {"/x/libbitsandbytes_cpu.so"})
    assert libs[1].get("variant_of") == "libbitsandbytes_cpu.so"


def test_a_build_for_another_cuda_beside_a_generic_one_stays_red_where_the_import_failed():
    # A package with _cpu.so and _cuda.so (built for CUDA 12) in a CUDA 13 torch whose import fails
    # first: no build is named for CUDA 13, so _cuda.so's missing libcudart.so.12 is a red, not a
    # variant of the _cpu.so that loads.
    import sys
    sys.path.insert(0, str(CELL))
    import load_library
    libs = [lib_entry("/x/_ext_cpu.so"),
            lib_entry("/x/_ext_cuda.so", ["libcudart.so.12"])]
    load_library.mark_runtime_variants({os.path.basename(lib["path"]): lib for lib in libs}, [], "13.0")
    assert "variant_of" not in libs[1]


def test_a_namespace_is_named_by_the_files_that_define_or_use_its_ops(tmp_path):
    # bitsandbytes 0.45: libraries loaded by ctypes, no op defined; 0.46: torch.library.define("bitsandbytes::...").
    # A TORCH_LIBRARY block leaves torch::Library's constructor among the imports and the namespace
    # as a string of its own; a namespace's name inside other words names nothing.
    import sys
    sys.path.insert(0, str(CELL))
    import load_library
    pkg = tmp_path / "pkg"
    (pkg / "backends").mkdir(parents=True)
    (pkg / "__init__.py").write_text("import ctypes\nlib = ctypes.CDLL('libnsx_cpu.so')  # nsx_ops is no op\n")
    (pkg / "libnsx_cpu.so").write_bytes(b"\x7fELF\x00nsx_quantize\x00nsx\x00")
    assert load_library.files_naming_namespace(str(pkg), "nsx") == {"files": 2, "naming": []}
    (pkg / "backends" / "ops.py").write_text("import torch\ntorch.library.define('nsx::quantize', '(Tensor a) -> Tensor')\n")
    (pkg / "_C.so").write_bytes(b"\x7fELF\x00_ZN5torch7LibraryC1ENS0_4KindE\x00nsx\x00")
    (pkg / "caller.py").write_text("import torch\ny = torch.ops.nsx.quantize(x)\n")
    assert load_library.files_naming_namespace(str(pkg), "nsx") == {
        "files": 5, "naming": ["_C.so", "caller.py", "backends/ops.py"]}


def test_a_library_a_requirement_ships_is_loaded_first_and_named_with_what_it_lacks(torch_info, cc, build_root):
    # cuequivariance-ops-torch: its extension NEEDs libcue_ops.so (no RUNPATH), which its requirement
    # cuequivariance-ops ships and its import loads first; libcue_ops.so needs the GPU driver's
    # libcuda.so.1. The load step's PYTHONPATH is the package's folder, then its requirements'.
    d = build_root / "requirement-library"
    pkg, req, stub = d / "site" / "reqpkg", d / "deps" / "reqlib" / "lib", d / "stub"
    for folder in (pkg, req, stub):
        folder.mkdir(parents=True, exist_ok=True)
    (stub / "drv.c").write_text("int drv_init(void) { return 0; }\n")
    (req / "req.c").write_text("int drv_init(void);\nint req_call(void) { return drv_init() + 7; }\n")
    (pkg / "ext.c").write_text("int req_call(void);\nint ext_call(void) { return req_call(); }\n")
    compile_or_fail([cc, "-shared", "-fPIC", "drv.c", "-o", "libopm_absent_drv.so.1",
                     "-Wl,-soname,libopm_absent_drv.so.1"], "the driver's stand-in", cwd=stub)
    compile_or_fail([cc, "-shared", "-fPIC", "req.c", "-o", "libopm_req.so", "-Wl,-soname,libopm_req.so",
                     str(stub / "libopm_absent_drv.so.1")], "the requirement's library", cwd=req)
    compile_or_fail([cc, "-shared", "-fPIC", "ext.c", "-o", "_ext.so", str(req / "libopm_req.so")], "the extension",
                    cwd=pkg)
    for f in (stub / "drv.c", req / "req.c", pkg / "ext.c"):
        f.unlink()
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(d / "site"), str(d / "deps")]), PYTHONDONTWRITEBYTECODE="1")

    # The driver's library there (LD_LIBRARY_PATH): the requirement's library loads first, then the extension.
    out, _ = run_json("load_library.py", "--find", str(pkg), env=dict(env, LD_LIBRARY_PATH=str(stub)))
    ext = out["libraries"][0]
    assert ext["loaded"] is True, ext
    assert [os.path.basename(p) for p in ext["loaded_after"]] == ["libopm_req.so"]

    # Without it: the requirement's library is there and does not load, and what it lacks is said.
    out, _ = run_json("load_library.py", "--find", str(pkg), env=env)
    ext = out["libraries"][0]
    assert ext["loaded"] is False and ext["missing_libraries"] == ["libopm_req.so"], ext
    assert ext["missing_through"] == {"libopm_req.so": {"path": str(req / "libopm_req.so"),
                                                        "missing": ["libopm_absent_drv.so.1"]}}


@pytest.mark.parametrize("torch_version, loads, expected", [
    # In a torch it has a build for, the package loads torch-2.6/lib/…: the others are variants of it.
    ("2.6.0+debian", "torch-2.6", [("2.3", "torch-2.6/lib/libmetatensor_torch.so"), (None, None),
                                   ("2.14", "torch-2.6/lib/libmetatensor_torch.so")]),
    # In torch 2.15 none fits: each is a build for another torch, one red names them all.
    ("2.15.0+cu132", None, [("2.3", None), ("2.6", None), ("2.14", None)]),
])
def test_builds_per_torch_version_in_folders_of_one_name(torch_version, loads, expected):
    # metatensor-torch 0.10.8 (and featomic-torch, sphericart-torch, vesin-torch) ship one py3-none
    # wheel with PACKAGE/torch-2.3/lib/libmetatensor_torch.so ... torch-2.14/lib/..., and load the one
    # for torch.__version__'s major.minor at import: the torch is in the folder, not the name.
    import sys
    sys.path.insert(0, str(CELL))
    import load_library
    site = "/site/metatensor_torch"
    libs = [{"path": f"{site}/{v}/lib/libmetatensor_torch.so", "loaded": v == loads, "error_kind": "undefined_symbol"}
            for v in ("torch-2.3", "torch-2.6", "torch-2.14")]
    load_library.mark_other_torch_builds(libs, torch_version)
    assert [(lib.get("for_torch"), lib.get("variant_of")) for lib in libs] == expected
    assert all(lib["build_of"] == "libmetatensor_torch.so" for lib in libs if lib.get("for_torch"))
    assert libs[0]["build_label"] == "torch-2.3/lib/libmetatensor_torch.so"
    # A folder that only looks like a version far above the library, or a name without one, is no build.
    assert load_library.torch_build_of("/torch-2.6/a/b/c/libx.so") is None
    assert load_library.torch_build_of("/site/pkg/lib/libx.so") is None


def test_builds_per_torch_release_named_by_the_release_alone():
    # torch-tpu 0.2.0 ships env_2_11_0.so ... env_2_15_0.so and libpywrap_2_11_0_common.so ...; its
    # loader imports the newest build not newer than the running torch. In torch 2.14.1 the _2_14_0
    # builds load; the others are other torches' builds, the loaded one their variant.
    import sys
    sys.path.insert(0, str(CELL))
    import load_library
    assert load_library.torch_build_of("/s/torch_tpu/_internal/env_2_12_0.so") == ("env_<torch>.so", "2.12.0", None)
    assert load_library.torch_build_of("/s/libpywrap_2_11_0_common.so") == ("libpywrap_<torch>_common.so", "2.11.0",
                                                                            None)
    libs = [{"path": "/s/torch_tpu/%s_%s.so" % (stem, v), "loaded": v == "2_14_0", "error_kind": "undefined_symbol"}
            for stem in ("env", "sync") for v in ("2_11_0", "2_14_0", "2_15_0")]
    # One file whose name holds a number like a release: not a build per torch.
    libs.append({"path": "/s/torch_tpu/libcodec_2_1_0.so", "loaded": False, "error_kind": "undefined_symbol"})
    load_library.mark_other_torch_builds(libs, "2.14.1+cu130")
    assert [(lib.get("for_torch"), lib.get("variant_of")) for lib in libs[:3]] == [
        ("2.11.0", "env_2_14_0.so"), (None, None), ("2.15.0", "env_2_14_0.so")]
    assert libs[3]["variant_of"] == "sync_2_14_0.so" and libs[3]["build_of"] == "sync_<torch>.so"
    assert "for_torch" not in libs[6]


def test_a_sibling_in_torch_folders_is_taken_from_the_needing_librarys_folder(tmp_path):
    # featomic-torch's torch-2.6/lib/libfeatomic_torch.so needs libmetatomic_torch.so, which its
    # requirement metatomic-torch has in torch-2.10/lib/ … torch-2.6/lib/: walk order finds 2.10's first.
    import sys
    sys.path.insert(0, str(CELL))
    import load_library
    for v in ("torch-2.10", "torch-2.6"):
        (tmp_path / "metatomic" / v / "lib").mkdir(parents=True)
        (tmp_path / "metatomic" / v / "lib" / "libmetatomic_torch.so").write_bytes(b"")
    needing = str(tmp_path / "featomic" / "torch-2.6" / "lib" / "libfeatomic_torch.so")
    found = load_library.libraries_named(str(tmp_path), {"libmetatomic_torch.so"}, near=needing)
    assert found["libmetatomic_torch.so"].endswith("/metatomic/torch-2.6/lib/libmetatomic_torch.so")
    plain = load_library.libraries_named(str(tmp_path), {"libmetatomic_torch.so"})
    assert plain["libmetatomic_torch.so"].endswith("/metatomic/torch-2.10/lib/libmetatomic_torch.so")


@pytest.mark.parametrize("torch_cuda, expected", [(None, "torch-2.14/lib/libsphericart_torch.so"), ("13.2", None)])
def test_a_cuda_helper_of_the_plain_build_is_unused_in_a_cpu_torch(torch_cuda, expected):
    # sphericart-torch 2.0.4 in Debian's CPU torch 2.14: the import loads torch-2.14/lib/
    # libsphericart_torch.so; its libsphericart_torch_cuda_stream.so, opened only for CUDA tensors,
    # lacks libnvrtc.so.12 and torch's CUDA libraries here. In a CUDA torch it stays judged.
    import sys
    sys.path.insert(0, str(CELL))
    import load_library
    site = "/site/sphericart/torch/torch-2.14/lib"
    libs = [{"path": site + "/libsphericart_torch.so", "loaded": True, "error_kind": "", "missing_libraries": []},
            {"path": site + "/libsphericart_torch_cuda_stream.so", "loaded": False, "error_kind": "missing_library",
             "missing_libraries": ["libnvrtc.so.12", "libc10_cuda.so", "libtorch_cuda.so"]}]
    load_library.mark_runtime_variants({load_library.build_label(lib["path"]): lib for lib in libs},
                                       {site + "/libsphericart_torch.so"}, torch_cuda)
    assert libs[1].get("variant_of") == expected
    assert libs[0].get("variant_of") is None


def test_a_build_for_another_torch_is_no_optional_backend():
    # featomic-torch 0.7.6 in torch 2.14: its torch-2.13/lib/ build lacks metatomic-torch's library
    # (missing_library, not an undefined symbol): another torch's build, not "an optional backend
    # that needs system libraries".
    import sys
    sys.path.insert(0, str(CELL))
    import load_library
    libs = [{"path": "/s/featomic/torch/torch-2.14/lib/libfeatomic_torch.so", "loaded": True, "error_kind": "",
             "missing_libraries": []},
            {"path": "/s/featomic/torch/torch-2.13/lib/libfeatomic_torch.so", "loaded": False,
             "error_kind": "missing_library", "missing_libraries": ["libmetatomic_torch.so"]}]
    load_library.mark_other_torch_builds(libs, "2.14.1+debian")
    load_library.mark_optional_backends(libs, loaded_by_import=set(), own_names={"libfeatomic_torch.so"})
    assert libs[1]["for_torch"] == "2.13" and libs[1]["optional"] is False


def test_a_missing_system_library_names_the_versions_of_it_the_loader_has():
    # Debian sid's FFmpeg is libavutil.so.61; torchcodec's newest build needs libavutil.so.60: the
    # system library is there, in a version no build of it was made for.
    import sys
    sys.path.insert(0, str(CELL))
    import load_library
    known = {"libavutil.so.61", "libavutil.so.61.1.102", "libavutil.so", "libavcodec.so.63", "libavutil-extra.so.60"}
    assert load_library.other_versions("libavutil.so.60", known) == ["libavutil.so.61"]
    assert load_library.other_versions("libavutil.so.61", known) == []
    assert load_library.other_versions("libswscale.so.9", known) == []
    assert load_library.other_versions("libfoo.so", known) == []
