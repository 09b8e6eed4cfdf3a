"""scripts/cell/abi_surface.py: what a library needs and what a torch runtime offers, read with
readelf/nm and /proc/self/maps, in the form the harness's load prediction reads."""
import functools
import os

from conftest import run_json


def fnv1a64_with_separator(text):
    """FNV-1a 64 written out from its definition (offset basis, prime), then one 0xff byte: the
    harness's Fnv64().add(text).hex(), which the script must match."""
    step = lambda h, byte: ((h ^ byte) * 1099511628211) % (1 << 64)  # noqa: E731
    return "%016x" % step(functools.reduce(step, text.encode(), 14695981039346656037), 0xFF)


def test_fnv_matches_the_harness_definition():
    import sys
    sys.path.insert(0, str(__import__("conftest").CELL))
    import abi_surface
    for text in ["", "a", "torch_parallel_for", "_ZN3c1019UndefinedTensorImpl10_singletonE"]:
        assert abi_surface.fnv64(text) == fnv1a64_with_separator(text)


def test_imports_list_needed_sonames_and_versioned_undefined_symbols(c_libs, op_library):
    out, _ = run_json("abi_surface.py", "--imports", c_libs["undef"], op_library)
    undef, ops = out["imports"]
    assert undef["library"] == c_libs["undef"]
    names = {name for name, _ in undef["undefined"]}
    assert {"opm_missing_c", "_ZN3opm4goneEi"} <= names
    assert "libopmhelper.so" in undef["needed"]  # linked against the helper library
    versions = {version for _, version in ops["undefined"]}
    assert any(v.startswith("GLIBCXX_") for v in versions)  # C++ runtime symbols carry theirs
    assert any(n.startswith("libc10") for n in ops["needed"])
    # the op library was linked with an RPATH to torch's lib/ (CMake's build RPATH)
    assert any(os.path.isfile(os.path.join(d, "libc10.so")) for d in ops["runpath"]), ops["runpath"]
    assert all("$ORIGIN" not in d for d in undef["runpath"])


def test_exports_hold_the_runtimes_torch_symbols_and_versions(torch_info):
    out, _ = run_json("abi_surface.py", "--exports", timeout=300)
    e = out["exports"]
    assert any("libtorch_cpu" in lib for lib in e["torch_libraries"])
    # a symbol every libc10 defines, hashed as the harness hashes it
    assert fnv1a64_with_separator("_ZN3c1019UndefinedTensorImpl10_singletonE") in set(e["symbols"])
    # and one of libstdc++'s: an unversioned reference binds to any loaded library's symbol
    assert fnv1a64_with_separator("_ZSt9terminatev") in set(e["symbols"])
    # the folders a build's RUNPATH may name, with what they hold (torch's own lib/ at least)
    assert any(any(n.startswith("libtorch_cpu.so") for n in names) for names in e["folders"].values())
    assert "GLIBC_2.2.5" in e["versions"] and any(v.startswith("GLIBCXX_3.4") for v in e["versions"])
    assert any(s.startswith("libtorch_cpu.so") for s in e["sonames"])


def test_bad_arguments_are_an_error_object():
    out, _ = run_json("abi_surface.py", "--nope")
    assert "usage" in out["error"]
