"""Load op libraries into this cell's torch runtime, the way a user's `torch.ops.load_library`
does (dlopen with RTLD_NOW), and report what happened. Prints ONE JSON object; never raises.

    load_library.py [--namespace NS] [--ops a,b] [--find DIR] [LIB...]

For a library that does not load, the whole list of symbols it needs and this runtime lacks
(not only the first one dlerror names), demangled, and the libraries it needs that are
missing. For a namespace, which ops have CPU / CUDA / Meta / Autograd kernels afterwards
("ops": {op: {key: true/false/null}}, served by dispatcher.py's rule) and which registration
serves each ("served_by": {op: {key: "CPU"/"CompositeExplicitAutograd"/.../null}}).
The cross-load check runs this on a library built in another cell.

Each library is first dlopened alone, in a process of its own: a package may ship variants of
one library that must never share a process (torch-scatter's _scatter_cpu.so and
_scatter_cuda.so register the same ops; together they abort with "Tried to register an operator
... multiple times"), and one that aborts must not take the others' verdicts with it. With
--import, the ops are then judged as a Python user gets them: after `import MODULE` alone, which
loads the libraries it chooses; kernels missing when only those libraries are dlopened (in
another process) were registered from Python.

Ops as users reach them: a package may leave its compiled extension to a submodule that imports
`pkg._C` when first used. Where ops are missing after `import MODULE`, the package's extension
modules (its libraries that define PyInit_<name>) are imported one by one, shallowest first, in a
child process that reports which import made which op appear; this process then imports the same
ones ("reached": {"modules": [...], "ops": {op: "pkg._C"}}). A library no import brings is
finally dlopened as torch.ops.load_library does ({op: "dlopen NAME.so"}). "Not registered at
all" is left for what none of these brings.

An import that kills its process (a library's static initialiser that throws, a segfault) would
take this report with it: the import and what follows it run in a child of this process, which
prints the report; where a signal kills that child, this process reports the import as a crash,
with its signal and the last words it wrote, and the libraries' loads it already has.

A package without any compiled library (a setup.py that builds none in this runtime, by design)
is no error when MODULE is given: "libraries" is empty and the import is judged.

An extension module the import tried and went on without, where the package's `except
ImportError:` imports the same names from Python (import_fallbacks.py), is named in the import's
"fallbacks" and on its library ("python_fallback"): the package works without it, in Python."""
import argparse
import ctypes
import filecmp
import functools
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile

from dispatcher import kernel_table, namespaces_added, ops_in_namespace, registered_ops, registration_sites, served_by
from import_fallbacks import fallbacks, recording
from missing_name import never_bound
from zygote import Zygote

RTLD_LAZY, RTLD_NOW, RTLD_GLOBAL, RTLD_NOLOAD = 0x1, 0x2, 0x100, 0x4
MAX_SYMBOLS = 20


def libc():
    lib = ctypes.CDLL(None)
    if not hasattr(lib, "dlopen"):  # glibc < 2.34 keeps dl* in libdl
        lib = ctypes.CDLL("libdl.so.2")
    lib.dlopen.restype = ctypes.c_void_p
    lib.dlopen.argtypes = [ctypes.c_char_p, ctypes.c_int]
    lib.dlsym.restype = ctypes.c_void_p
    lib.dlsym.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
    lib.dlerror.restype = ctypes.c_char_p
    if hasattr(lib, "dlvsym"):  # glibc's: a symbol of one version, compat (non-default) ones too
        lib.dlvsym.restype = ctypes.c_void_p
        lib.dlvsym.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_char_p]
    return lib


def defines(dl, handle, name, version):
    """Whether the handle's scope (None: the global one) defines the symbol as the dynamic linker
    binds a reference to it: a versioned reference binds to that version, which may be a compat
    one that dlsym never returns (__expf_finite@GLIBC_2.15 in glibc >= 2.31, kept for binaries
    linked against it)."""
    if version and hasattr(dl, "dlvsym") and dl.dlvsym(handle, name.encode(), version.encode()):
        return True
    return bool(dl.dlsym(handle, name.encode()))


def tool_lines(argv):
    """Lines a binutils tool prints, or None when it is not installed or fails."""
    if shutil.which(argv[0]) is None:
        return None
    try:
        p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, timeout=120)
    except (OSError, subprocess.SubprocessError):
        return None
    return p.stdout.decode("utf-8", "replace").splitlines() if p.returncode == 0 else None


def demangle(symbols):
    if not symbols:
        return []
    if shutil.which("c++filt") is None:
        return list(symbols)
    p = subprocess.run(["c++filt"], input="\n".join(symbols).encode(), stdout=subprocess.PIPE, timeout=60)
    out = p.stdout.decode("utf-8", "replace").splitlines()
    return out if len(out) == len(symbols) else list(symbols)


def dynamic_entries(path, tag):
    lines = tool_lines(["objdump", "-p", path]) or []
    return [line.split()[1] for line in lines if line.split()[:1] == [tag] and len(line.split()) > 1]


def needed_sonames(path):
    return dynamic_entries(path, "NEEDED")


def search_dirs(path):
    """The library's own RUNPATH (else RPATH) folders, $ORIGIN expanded: where the loader
    looks first for what it NEEDs (a helper library next to it, say)."""
    origin = os.path.dirname(os.path.realpath(path))
    dirs = []
    for entry in dynamic_entries(path, "RUNPATH") or dynamic_entries(path, "RPATH"):
        for d in entry.split(":"):
            d = d.replace("${ORIGIN}", origin).replace("$ORIGIN", origin)
            if d and d not in dirs:
                dirs.append(d)
    return dirs


def open_needed(dl, soname, dirs):
    """A handle on a NEEDED library as the loader would find it: already loaded, in the
    library's RUNPATH, or on the default search path; None when it cannot be opened."""
    h = dl.dlopen(soname.encode(), RTLD_LAZY | RTLD_NOLOAD)
    if h:
        return h
    if "/" not in soname:
        for d in dirs:
            candidate = os.path.join(d, soname)
            if os.path.exists(candidate):
                h = dl.dlopen(candidate.encode(), RTLD_LAZY)
                if h:
                    return h
    return dl.dlopen(soname.encode(), RTLD_LAZY)


# Symbol versions of the system's C and C++ runtimes: a symbol of one that is missing means the
# system's libstdc++ or glibc is older than the one the library was built with (GLIBCXX_3.4.32:
# GCC 13's), not that torch lacks anything.
SYSTEM_RUNTIME_VERSION = re.compile(r"^(GLIBCXX|CXXABI|GLIBC)_[\d.]+$")


def apart(job):
    """job() in a child of this process: its JSON-able result, or None where the child dies. The
    symbol survey opens a library's NEEDED libraries RTLD_LAZY, which runs their constructors,
    and one beside a torch it was not built for may end the process (zentorch 2.14.0.1's
    libzentorch.so: a symbol lookup error, exit 127, or std::bad_alloc) where the loader's RTLD_NOW
    refused it cleanly: a user's import meets that refusal, never such a crash."""
    sys.stdout.flush()
    sys.stderr.flush()
    with tempfile.TemporaryFile() as result:
        pid = os.fork()
        if pid == 0:
            code = 0
            try:
                result.write(json.dumps(job()).encode())
                result.flush()
            except BaseException:  # noqa: BLE001 - the parent reads nothing and goes on
                code = 1
            os._exit(code)
        if os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) != 0:
            return None
        result.seek(0)
        return json.loads(result.read().decode("utf-8") or "null")


def unresolved_symbols(dl, path, versions=None):
    """The library's undefined (non-weak) dynamic symbols that neither the global scope nor any
    library it needs (as this process would resolve them) defines. `versions`, when given, gets
    each one's symbol version (nm's @VERSION), where it has one."""
    lines = tool_lines(["nm", "-D", "--undefined-only", path])
    if lines is None:
        return None
    handles = []
    dirs = search_dirs(path)
    for soname in needed_sonames(path):
        h = open_needed(dl, soname, dirs)
        if h:
            handles.append(h)
    missing = []
    for line in lines:
        parts = line.split()
        if len(parts) < 2 or parts[-2] != "U":
            continue  # weak references (w/v) may stay unresolved
        name, _, version = parts[-1].partition("@")
        version = version.lstrip("@")
        if defines(dl, None, name, version) or any(defines(dl, h, name, version) for h in handles):
            continue
        missing.append(name)
        if versions is not None and version:
            versions[name] = version
    return missing


def missing_libraries(dl, path):
    """What the dynamic loader cannot satisfy in this process: the library's NEEDED sonames that
    are neither loaded already (torch's own, once torch is imported: the loader matches a loaded
    library's soname) nor found through its RUNPATH or the loader's path, and symbol versions the
    runtime's libraries lack as ldd reports them ("GLIBCXX_3.4.32 of libstdc++.so.6"). ldd alone
    would name torch's libraries too wherever a relative RPATH into torch's folder does not
    resolve from where the package was installed, though this process has them."""
    dirs = search_dirs(path)
    missing = [soname for soname in needed_sonames(path) if not open_needed(dl, soname, dirs)]
    for line in tool_lines(["ldd", path]) or []:
        m = re.search(r"(\S+): version `([^']+)' not found", line)
        if m:
            missing.append("%s of %s" % (m.group(2), os.path.basename(m.group(1))))
        elif "=> not found" in line and not missing and not dl.dlopen(line.split()[0].encode(), RTLD_LAZY | RTLD_NOLOAD):
            missing.append(line.split()[0])  # a library one of its own NEEDs lacks
    return sorted(set(missing), key=missing.index)


@functools.lru_cache(maxsize=None)
def loader_sonames():
    """The sonames in the dynamic loader's cache (ldconfig -p, which may be outside PATH: /sbin),
    read once per process; empty where it cannot be read."""
    for ldconfig in ("ldconfig", "/sbin/ldconfig", "/usr/sbin/ldconfig"):
        lines = tool_lines([ldconfig, "-p"]) if shutil.which(ldconfig) else None
        if lines is not None:
            return frozenset(line.strip().split(" ", 1)[0] for line in lines[1:] if ".so" in line)
    return frozenset()


def other_versions(soname, known=None):
    """The sonames of the same library in other versions that the loader has (sid's FFmpeg:
    libavutil.so.61 where a build needs libavutil.so.60): the system library is installed, in a
    version the build was not made for. [] for an unversioned soname or none there."""
    m = re.match(r"^(lib[^/]+?\.so)\.\d+$", soname)
    if not m:
        return []
    same = re.compile(re.escape(m.group(1)) + r"\.\d+$")
    return sorted(n for n in (loader_sonames() if known is None else known) if n != soname and same.match(n))


@functools.lru_cache(maxsize=None)
def files_under(root):
    """{name: path} of the files under root, each name's first in walk order (sorted), read once
    per process: a library that does not load asks again for the same folders (its siblings',
    recursively, and its requirements', which may hold NVIDIA's thousands of files). Read only."""
    first = {}
    for folder, dirs, files in os.walk(root):
        dirs.sort()
        for f in sorted(files):
            first.setdefault(f, os.path.join(folder, f))
    return first


def siblings_named(root, sonames):
    """{soname: path} of the files under the package's folder named like the sonames."""
    return {f: path for f, path in files_under(root).items() if f in sonames}


def requirement_roots(root):
    """The folders the package's requirements are installed in: the import path's other entries
    (the load step's PYTHONPATH: the package's folder, then its requirements')."""
    own = os.path.realpath(root) if root else None
    roots = []
    for entry in os.environ.get("PYTHONPATH", "").split(os.pathsep):
        if entry and os.path.isdir(entry) and os.path.realpath(entry) != own and entry not in roots:
            roots.append(entry)
    return roots


def libraries_named(root, sonames, near=None):
    """{soname: path} of the libraries named like the sonames: the package's own first, then its
    requirements' (cuequivariance-ops-torch's extension NEEDs libcue_ops.so, which its requirement
    cuequivariance-ops ships and its import loads first, with no RUNPATH between them). Where the
    library NEAR that needs them sits in a torch folder and they have one build per torch folder
    too, the one of its torch (featomic-torch's torch-2.6/lib/libfeatomic_torch.so needs
    metatomic-torch's torch-2.6/lib/libmetatomic_torch.so, not the first in walk order, 2.10's)."""
    found = {}
    for folder in [root] + requirement_roots(root):
        for soname, path in siblings_named(folder, sonames).items():
            found.setdefault(soname, same_torch_folder(path, near) if near else path)
    return found


def same_torch_folder(path, near):
    """PATH's build in NEAR's torch folder (torch-2.10/lib/x.so -> torch-2.6/lib/x.so) where both
    sit in one and that build exists; else PATH."""
    parts, near_parts = path.split(os.sep), near.split(os.sep)
    at, near_at = torch_folder_at(parts), torch_folder_at(near_parts)
    if at is None or near_at is None or parts[at] == near_parts[near_at]:
        return path
    other = os.sep.join(parts[:at] + [near_parts[near_at]] + parts[at + 1:])
    return other if os.path.isfile(other) else path


def load_siblings_first(dl, path, root, depth=0):
    """The package's own libraries `path` needs and cannot find (a relative RUNPATH that does not
    resolve from where pip put them, or none: the package loads them first), and its requirements'
    (which their import loads), loaded first, as the package's import does; returns those loaded,
    in order, once `path` loads, else None."""
    if depth > 4:
        return None
    loaded = []
    for soname, sibling in libraries_named(root, set(missing_libraries(dl, path)), near=path).items():
        if dl.dlopen(sibling.encode(), RTLD_NOW | RTLD_GLOBAL):
            loaded.append(sibling)
            continue
        deeper = load_siblings_first(dl, sibling, root, depth + 1)
        if deeper is None:
            return None
        loaded += deeper + [sibling]
    return loaded if loaded and dl.dlopen(path.encode(), RTLD_NOW | RTLD_GLOBAL) else None


# A symbol of torch's, as c++filt writes it: its C++ namespaces (c10::Error::Error(...), "typeinfo
# for at::Tensor", torch::Library::_def(...)) and its C functions (the stable ABI's aoti_torch_*
# and torch_*, the Python bindings' THP*); or still mangled, where no c++filt demangled it
# (_ZN3c105Error…, _ZTIN2at6Tensor…).
TORCH_SYMBOL = re.compile(r"(?<![\w:])(?:c10|at|torch|caffe2|aten)::|^_?(?:aoti_torch_|torch_|THP)|"
                          r"^_Z[A-Z]*(?:3c10|2at|5torch|6caffe2)")
# What a demangled symbol belongs to: its outer namespace (LAMMPS_NS of LAMMPS_NS::Pair::init, fmt
# of fmt::v10_lmp::vformat), or a C library's prefix (MPI_ of MPI_Allgather).
SYMBOL_PREFIX = re.compile(r"^(?:(?:typeinfo name|typeinfo|vtable|VTT|guard variable|construction vtable) for )?"
                           r"(?:(?P<namespace>[A-Za-z_]\w*)::|(?P<c>[A-Za-z]+_)(?=[A-Za-z0-9]))")


def symbol_prefixes(demangled, most=3):
    """The namespaces or C prefixes most of DEMANGLED share, most common first (["MPI_",
    "LAMMPS_NS", "fmt"]): whose symbols a library lacks."""
    counts = {}
    for d in demangled:
        m = SYMBOL_PREFIX.match(d)
        if m:
            key = m.group("namespace") or m.group("c")
            counts[key] = counts.get(key, 0) + 1
    return [k for k, _ in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:most]]


def load_one(dl, path, root=None):
    out = {"path": path, "loaded": False, "error_kind": None, "error": None, "undefined": [],
           "undefined_count": 0, "missing_libraries": [], "loaded_after": []}
    if not os.path.isfile(path):
        out.update(error_kind="other", error="no such file")
        return out
    if dl.dlopen(path.encode(), RTLD_NOW | RTLD_GLOBAL):
        out["loaded"] = True
        return out
    message = (dl.dlerror() or b"").decode("utf-8", "replace")
    if "cannot open shared object file" in message:
        after = load_siblings_first(dl, path, root or os.path.dirname(path))
        if after:
            out.update(loaded=True, loaded_after=after)
            return out
        # With the siblings its package loads first in the process, it may find them and fail for
        # another reason, its own (executorch 1.3.1's libcustom_ops_aot_lib.so finds
        # _portable_lib by its soname, then lacks a torch::Library symbol of this torch): that one
        # is the cause its users meet.
        if not dl.dlopen(path.encode(), RTLD_NOW | RTLD_GLOBAL):
            retry = (dl.dlerror() or b"").decode("utf-8", "replace")
            if retry and "cannot open shared object file" not in retry:
                message = retry
                out["found_siblings_first"] = True
    out["error"] = message
    m = re.search(r"undefined symbol: (\S+)", message)
    # The loader's own words for a library built against a newer libstdc++ or glibc.
    too_old = re.search(r"version `((?:GLIBCXX|CXXABI|GLIBC)_[\d.]+)' not found", message)
    if m or too_old:
        out["error_kind"] = "undefined_symbol"

        def survey():
            versions = {}
            return [unresolved_symbols(dl, path, versions), versions]
        missing, versions = apart(survey) or [None, {}]
        if not missing and m:  # no binutils, the survey died, or only the one dlerror saw
            missing = [m.group(1).split("@")[0]]
        missing = missing or []
        system = [s for s in missing if SYSTEM_RUNTIME_VERSION.match(versions.get(s, ""))]
        if system or too_old:
            # Listed first: whatever else it lacks, this system cannot run it.
            out["system_runtime"] = {"versions": sorted(set([versions[s] for s in system] +
                                                            ([too_old.group(1)] if too_old else []))),
                                     "count": len(system), "symbols": demangle(system[:MAX_SYMBOLS])}
            missing = system + [s for s in missing if s not in system]
        out["undefined_count"] = len(missing)
        every = demangle(missing)
        out["undefined"] = [{"symbol": s, "demangled": d} for s, d in zip(missing[:MAX_SYMBOLS], every[:MAX_SYMBOLS])]
        out["torch_undefined_count"] = sum(1 for d in every if TORCH_SYMBOL.search(d))
        out["undefined_prefixes"] = symbol_prefixes(every)
    elif "cannot open shared object file" in message:
        out["error_kind"] = "missing_library"
        out["missing_libraries"] = missing_libraries(dl, path) or [message.split(":")[0].strip()]
        others = {soname: found for soname in out["missing_libraries"] if (found := other_versions(soname))}
        if others:
            out["other_versions"] = others
        # A library it needs that is there, in its package or a requirement, yet does not load:
        # what that one lacks is the cause (libcue_ops.so, there, lacks libcuda.so.1).
        there = libraries_named(root or os.path.dirname(path), set(out["missing_libraries"]), near=path)
        if there:
            out["missing_through"] = {soname: {"path": found, "missing": missing_libraries(dl, found)}
                                      for soname, found in there.items()}
    else:
        out["error_kind"] = "other"
    return out


def last_json_line(stdout):
    """The JSON object a child printed last, or None when it printed none."""
    try:
        return json.loads(stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        return None


# Instruction set extensions a library's code can use that a CPU may lack: their name, the
# /proc/cpuinfo flag of a CPU that has them, and how objdump writes an instruction of theirs
# (AVX-512: the zmm registers, or an opmask; AMX: the tile registers).
CPU_EXTENSIONS = [("AVX-512", "avx512f", re.compile(r"%zmm|\{%k[1-7]\}")), ("AMX", "amx_tile", re.compile(r"%tmm"))]


def cpu_flags():
    """The flags of this machine's CPU (/proc/cpuinfo), or None where it cannot tell."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
            for line in f:
                if line.startswith("flags"):
                    return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return None


def code_uses(path, pattern):
    """Whether objdump's disassembly of PATH has an instruction matching PATTERN (read until the
    first one)."""
    try:
        proc = subprocess.Popen(["objdump", "-d", "--no-show-raw-insn", path], stdout=subprocess.PIPE,
                                stderr=subprocess.DEVNULL, text=True, errors="replace")
    except OSError:
        return False
    try:
        return any(pattern.search(line) for line in proc.stdout)
    finally:
        proc.kill()
        proc.wait()


def extensions_this_cpu_lacks(paths, flags):
    """The instruction set extensions (CPU_EXTENSIONS) the code of PATHS uses and a CPU with FLAGS
    does not have: why a library dies of SIGILL on this machine and not on its users' CPUs."""
    if flags is None:
        return []
    return [name for name, flag, pattern in CPU_EXTENSIONS
            if flag not in flags and any(code_uses(p, pattern) for p in paths)]


# The line of a dying load that says why: c10::Error's what(), an exception, a failed assertion
# (UCX's "debug.c:1204 Assertion `!ucs_debug_initialized' failed"), a fatal error, an abort.
LAST_WORDS = re.compile(r"what\(\):|Error|Assertion|\bFatal\b|\bfatal error\b|\babort", re.I)
# auditwheel's suffix on the libraries it copies into a wheel (libucs-14c218c5.so.0.0.0).
GRAFTED_HASH = re.compile(r"-[0-9a-f]{8}(?=\.so)")


def library_stem(path):
    """libucs of libucs.so.0.0.0 and of auditwheel's libucs-14c218c5.so.0.0.0."""
    return GRAFTED_HASH.sub("", os.path.basename(path)).split(".so")[0]


def copies_already_mapped(path, root=None):
    """Other copies of the library, or of one of the package's own that it needs, which this process
    (torch's, before anything of the package) has already mapped: nixl-cu12 1.5.1 grafts UCX
    (libucs-14c218c5.so.0.0.0) and Debian's torch brings Debian's UCX through Open MPI
    (/lib/x86_64-linux-gnu/libucs.so.0): the second copy's initialiser binds to the first's symbols
    and aborts ("Assertion `!ucs_debug_initialized' failed"). [{"own", "loaded"}], first found."""
    mine = [path] + (list(libraries_named(root, needed_sonames(path), near=path).values()) if root else [])
    with open("/proc/self/maps") as maps:
        fields = [line.split() for line in maps]
    mapped = sorted({f[5] for f in fields if len(f) >= 6 and f[5].startswith("/") and ".so" in os.path.basename(f[5])})
    for own in mine:  # the library itself first, then what it needs
        for m in mapped:
            if library_stem(m) == library_stem(own) and os.path.realpath(m) != os.path.realpath(own):
                return [{"own": os.path.basename(own), "loaded": m}]
    return []


def load_report(path, ended, root=None):
    """What the child that loaded `path` alone (load_one) reported, or how it died: a library whose
    load aborts (a duplicate registration, a static initialiser that throws) is reported as such,
    with the line that says why. One that dies of SIGILL where its code (or that of the package's
    libraries it needs) uses instructions this CPU lacks says which ("cpu_lacks")."""
    report = last_json_line(ended["stdout"])
    if report is not None:
        return report
    why = [line.strip() for line in ended["stderr"].splitlines() if LAST_WORDS.search(line)][:1]
    code = ended["returncode"]
    died = code < 0
    how = signal.Signals(-code).name if died else "exit %d" % code
    out = {"path": path, "loaded": False, "error_kind": "crash" if died else "other", "signal": how if died else None,
           "undefined": [], "undefined_count": 0, "missing_libraries": [], "loaded_after": [],
           "error": "the process died while loading it (%s)%s" % (how, ": " + why[0] if why else "")}
    if died:
        copies = copies_already_mapped(path, root)
        if copies:
            out["meets_loaded_copy"] = copies
    if how == "SIGILL":
        flags = cpu_flags()
        lacks, through = extensions_this_cpu_lacks([path], flags), None
        for needed in (libraries_named(root, needed_sonames(path), near=path).values() if root and not lacks else []):
            lacks, through = extensions_this_cpu_lacks([needed], flags), os.path.basename(needed)
            if lacks:
                break
        if lacks:
            out["cpu_lacks"] = lacks
            out["error"] += ": %s uses %s instructions, which this machine's CPU does not have" % (
                "the code of %s, which it needs," % through if through else "its code", " and ".join(lacks))
    return out


def load_all_isolated(zygote, paths, root=None):
    """load_one() of every path, each in a child of its own (as many at once as this machine has
    cores), in the order given. `root`: the package's folder, where its sibling libraries are
    looked for."""
    jobs = [["--just-load", p] + (["--find", root] if root else []) for p in paths]
    return [load_report(p, ended, root) for p, ended in zip(paths, zygote.run(jobs))]


def loaded_under(roots):
    """The shared libraries this process has mapped from under `roots` (what an import loaded)."""
    found = []
    try:
        with open("/proc/self/maps") as maps:
            for line in maps:
                path = line.split(None, 5)[-1].strip() if line.count(" ") >= 5 else ""
                if path.endswith(".so") or ".so." in path:
                    if any(path.startswith(r.rstrip("/") + "/") for r in roots) and path not in found:
                        found.append(path)
    except OSError:
        pass
    return found


def extensions_build_root(torch):
    """Where torch.utils.cpp_extension.load() builds the libraries a package compiles when it runs:
    TORCH_EXTENSIONS_DIR, else torch's default (~/.cache/torch_extensions). None where this torch
    does not say."""
    if os.environ.get("TORCH_EXTENSIONS_DIR"):
        return os.path.realpath(os.environ["TORCH_EXTENSIONS_DIR"])
    try:
        from torch.utils import cpp_extension
        return os.path.realpath(cpp_extension.get_default_build_root())
    except Exception:  # noqa: BLE001 - a torch without it: nothing compiled there is found
        return None


def compiled_at_import(torch):
    """The libraries the package's import compiled with torch.utils.cpp_extension.load() and loaded
    (torchac 0.9.3 builds its backend when `import torchac` runs): those this process mapped from
    torch's extensions build folder."""
    root = extensions_build_root(torch)
    return [{"path": p, "name": os.path.basename(p)} for p in loaded_under([root])] if root else []


def cpp_only_kernels(zygote, libraries, namespace, ops):
    """kernel_table after dlopening exactly `libraries` (no Python import), in a child."""
    ended = zygote.run([["--table-after-load", "--namespace", namespace, "--ops", ",".join(ops)] + libraries])[0]
    return last_json_line(ended["stdout"]) or {}


# What a package says when it declines to load its own compiled extension and goes on without
# it (a warning, a log line, a print), in the words of the libraries that do: xformers ("xFormers
# can't load C++/CUDA extensions"), torchao ("Skipping import of cpp extensions due to
# incompatible torch version"), fbgemm_gpu ("Could not load the library 'fbgemm_gpu_py.so'"),
# torchpipe, which compiles its extension at import where it has no build for the torch ("Failed to
# load or JIT compile builtin extensions"), and the generic forms of "falling back to a Python
# implementation".
DECLINED = [re.compile(p, re.I) for p in (
    r"can'?t load (the )?C\+\+/CUDA extensions?",
    r"skipping (the )?import of (the )?(cpp|c\+\+|cuda) extensions?",
    r"(could not|couldn'?t|failed to|unable to) (load|import|build|compile)( or (jit[- ]?)?(load|import|build|compile))? "
    r"(the )?(compiled |native |c\+\+ |cuda |cpp |built-?in )?(extension|library|module|kernel)s?\b",
    r"(cpp|c\+\+|cuda|compiled|native) extensions? (is |are )?(not|un)(available|loaded|found|usable)",
    r"fall(ing)? ?back to (the |a )?(pure[- ]?)?(python|pytorch|slow|reference|native torch)\b",
)]


# What a package says when its own version check refuses the torch it finds, before it raises
# or exits: IPEX 2.8.0 ("ERROR! Intel® Extension for PyTorch* needs to work with PyTorch 2.8.*, but
# PyTorch 2.6.0 is found", then a broken `os.exit(127)`), torchao 0.18.0 ("Skipping import of cpp
# extensions due to incompatible torch version. Please upgrade to torch >= 2.11.0", then an
# ImportError of a torch 2.11 API), nexfort 0.1.dev330, in the exception it raises ("The torch
# version(torch==2.4.0+cu121) of nexfort's compilation environment conflicts with the current
# environment(torch==2.4.1+cu121)!"), and the generic "requires torch X".
REFUSED = re.compile(r"(torch|pytorch).*\d+\.\d+.*\b(needs?|requires?|required|expects?|work with|works? only|"
                     r"compatible|incompatible|mismatch|conflicts? with|not supported|is found)\b|"
                     r"\b(needs?|requires?|required|expects?|work with|compatible|incompatible|upgrade to|downgrade to)\b"
                     r".*(torch|pytorch).*\d+\.\d+", re.I)


# A caution is no refusal: fbgemm_gpu 1.9.0 warns "FBGEMM_GPU version is 1.9.0, which is not
# guaranteed to be compatible with PyTorch 2.6.0+debian; library loading might crash!" and goes on
# loading; what fails after it (its CUDA torch's libraries, beside a CPU torch) is the cause.
CAUTION = re.compile(r"\b(not guaranteed|may not|might not|(might|may|could) (crash|fail)|at your own risk)\b", re.I)
ANSI_CODE = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


def wrapped_lines(text):
    """TEXT's lines, each run of consecutive lines indented alike joined into one: a message a
    package wraps over several indented lines (fbgemm_gpu 1.9.0's warning) read whole."""
    out, indent = [], 0
    for raw in ANSI_CODE.sub("", text).splitlines():
        line = raw.strip()
        depth = len(raw) - len(raw.lstrip())
        if line and out and out[-1] and indent and depth == indent:
            out[-1] += " " + line
        else:
            out.append(line)
            indent = depth if line else 0
    return out


def refusal_lines(text):
    """The lines of TEXT in which a package's version check refuses this torch (not those that
    only caution)."""
    return [line for line in wrapped_lines(text) if REFUSED.search(line) and not CAUTION.search(line)][:3]


def declined_lines(text):
    """The lines of TEXT in which a package declines its own extension."""
    return [line.strip() for line in text.splitlines() if any(p.search(line) for p in DECLINED)][:5]


def survive_import(zygote, said):
    """Forks before the import: returns None in the child, which goes on to import and report as
    if nothing happened; the parent waits. Where the child ends, the parent ends with its status
    (the child printed the report). Where a signal killed it (an import that kills its process),
    the parent returns the import's report as a crash, with the signal and the last words the
    import wrote into `said`, and goes on without it. SIGKILL (out of memory, killed from outside)
    is not the package's: the parent dies of it too, as the process would have."""
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:
        return None
    code = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
    if code == -signal.SIGKILL:
        os.kill(os.getpid(), signal.SIGKILL)
    if code >= 0:
        zygote.close()
        os._exit(code)
    how = signal.Signals(-code).name
    said.seek(0)
    lines = [line.rstrip() for line in said.read().decode("utf-8", "replace").splitlines() if line.strip()]
    sys.stderr.write("\n".join(lines) + "\n")  # the step's log keeps them
    why = [line.strip() for line in lines if "what():" in line or "Error" in line or "Fatal" in line][-1:]
    return {"ok": False, "crash": how, "error": "the import killed its process (%s)%s" % (how, ": " + why[0] if why else ""),
            "traceback": "\n".join(lines[-40:])}


# A compiler's error line ("path:line:col: error: …"), as torch.utils.cpp_extension's "Error
# building extension" quotes the whole ninja log of a compile at first use.
COMPILER_ERROR = re.compile(r"^\S+:\d+:(?:\d+:)? (?:fatal )?error: .*$", re.M)


def with_compile_errors(message, tail):
    """The traceback's tail, with the first compiler errors of the exception's message first where
    the tail lost them (torch-encoding 1.2.1 compiles at import; its errors sit before 3000
    characters of warnings): the cause of a failed first-use compile stays in what is judged."""
    errors = [line for line in COMPILER_ERROR.findall(message)[:3] if line not in tail]
    return "\n".join(errors + [tail]) if errors else tail


def import_module(name, said):
    """Imports `name` as a user would; what it exposes, or the error (its last traceback lines).
    What it says while importing (warnings, log records, its stdout and stderr, which this process
    sends on to stderr) is read for a package declining its own extension ("declined") or, where
    the import fails, refusing this torch by its own version check ("refused")."""
    import importlib
    import logging
    import traceback
    import warnings
    records, failed, caught = [], None, []
    handler = logging.Handler(logging.WARNING)
    handler.emit = lambda record: records.append(record.getMessage())
    logging.getLogger().addHandler(handler)
    sys.stdout.flush()
    sys.stderr.flush()
    saved = (os.dup(1), os.dup(2))
    os.dup2(said.fileno(), 1)  # a print
    os.dup2(said.fileno(), 2)  # a C library's or Python's own stderr
    tried = []  # the extension modules whose load failed on the way (import_fallbacks.py)
    try:
        with warnings.catch_warnings(record=True) as caught, recording(tried):
            warnings.simplefilter("always")
            module = importlib.import_module(name)
    except BaseException as e:  # noqa: BLE001 - SystemExit from a broken package included
        lines = traceback.format_exception(type(e), e, e.__traceback__)
        failed = {"module": name, "ok": False, "error": "%s: %s" % (type(e).__name__, e),
                  "traceback": with_compile_errors(str(e), "".join(lines)[-3000:]),
                  "missing_modules": missing_modules(e)}
        where = failed_in(e, name)
        if where:
            failed["failed_in"] = where
        unbound = never_bound(e)
        if unbound:
            failed["never_bound"] = unbound
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        for fd, kept in zip((1, 2), saved):
            os.dup2(kept, fd)
            os.close(kept)
        logging.getLogger().removeHandler(handler)
        said.seek(0)
        printed = said.read().decode("utf-8", "replace")
        # The step's log keeps what the import said (stdout is the JSON's: all of it goes to stderr).
        sys.stderr.write(printed + "".join(r + "\n" for r in records))
    if failed:
        # The exception's own first line counts: nexfort's version check raises its refusal. Not
        # the lines after it: torchcodec's "Could not load libtorchcodec. Likely causes: … 2. The
        # PyTorch version (2.12.1+cu130) is not compatible with this version of TorchCodec" lists
        # what might be, and refuses nothing.
        raised = failed["error"].splitlines()[:1]
        refused = refusal_lines("\n".join([str(w.message) for w in caught] + records + [printed] + raised))
        # A name its module never binds is missing beside any torch: a refusal said before it is
        # not why the import failed (missing_name.py).
        if refused and not failed.get("never_bound"):
            failed["refused"] = refused
        return failed
    functions = sorted(n for n in dir(module) if not n.startswith("_") and callable(getattr(module, n, None))
                       and type(getattr(module, n)).__name__ in ("builtin_function_or_method", "function"))
    out = {"module": name, "ok": True, "file": getattr(module, "__file__", None), "functions": functions,
           "torchvision_loaded": uses_torchvision()}
    for w in caught:
        sys.stderr.write("%s: %s\n" % (w.category.__name__, w.message))
    declined = declined_lines("\n".join([str(w.message) for w in caught] + records + [printed]))
    if declined:
        out["declined"] = declined
        # A package that compiles its extension at import where it has no build for this torch
        # (torchpipe 0.2.25 beside torch 2.14: its JIT build passes -std=c++17, torch's headers
        # need C++20): the compiler's first errors say why it went on without it.
        errors = COMPILER_ERROR.findall(printed)[:3]
        if errors:
            out["compile_errors"] = errors
    fell_back = fallbacks(tried, package_site(name))
    if fell_back:
        out["fallbacks"] = fell_back
    return out


def uses_torchvision():
    """Whether what this process imported so far brought torchvision in: its Python package, or its
    library by a library's NEEDED. Nothing of this script imports it, nor does torch: the import did."""
    if "torchvision" in sys.modules:
        return True
    try:
        with open("/proc/self/maps") as maps:
            return any(re.search(r"/torchvision/[^/]*\.so|/libtorchvision[^/]*\.so", line) for line in maps)
    except OSError:
        return False


def failed_in(error, package):
    """The top-level module, other than PACKAGE's own and torch, whose code raised ERROR: that of
    the innermost frame under the folders PYTHONPATH names (the package's and its requirements'),
    or None. vptq 0.0.5's import fails inside transformers 5, which pip picks for its
    `transformers>=4.45` and which disables torch older than 2.6: the failure is that requirement's."""
    import traceback
    roots = [os.path.realpath(p) for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    top = None
    for frame in traceback.extract_tb(error.__traceback__):
        path = os.path.realpath(frame.filename)
        for root in roots:
            if path.startswith(root + os.sep):
                top = os.path.relpath(path, root).split(os.sep)[0]
                top = top[:-3] if top.endswith(".py") else top
                break
    return top if top and top not in (package.split(".")[0], "torch") else None


def missing_modules(error):
    """The modules an import lacked, the first one first: a package that falls back to another
    module when one is missing (dgl 2.1.0: `packaging`, else setuptools' vendored copy, which newer
    setuptools no longer has) fails naming the fallback; the one it wanted is the first."""
    names = []
    while error is not None:
        if isinstance(error, ModuleNotFoundError) and error.name:
            names.insert(0, error.name)
        error = error.__context__
    return names


def package_modules(root):
    """The top-level modules the package installed under ROOT holds, by the files its RECORD lists
    (top_level.txt can name modules the wheel does not have: deepspeed-kernels names three, ships
    one): what an import of it can name. Sorted; [] where ROOT has no dist-info."""
    import glob
    import importlib.machinery
    suffixes = sorted(importlib.machinery.EXTENSION_SUFFIXES, key=len, reverse=True) + [".py"]
    names = set()
    for record in glob.glob(os.path.join(root, "*.dist-info", "RECORD")):
        with open(record, encoding="utf-8", errors="replace") as f:
            for line in f:
                path = line.rsplit(",", 2)[0]
                top, _, rest = path.partition("/")
                if top in ("", "..", "__pycache__") or top.endswith((".dist-info", ".data")):
                    continue
                if rest:  # a package folder (not auditwheel's `pkg.libs`: no module)
                    if top.isidentifier():
                        names.add(top)
                    continue
                for suffix in suffixes:  # a module file: foo.py, foo.cpython-311-x86_64-linux-gnu.so
                    if top.endswith(suffix):
                        names.add(top[:-len(suffix)])
                        break
    return sorted(names)


def import_not_in_package(failed, module, root):
    """Where the import failed for want of the very module it names, and the package under ROOT
    holds other modules and not that one: those modules (the import named is wrong, the package
    is not at fault), else None."""
    top = module.split(".")[0]
    if failed.get("ok", True) or top not in [m.split(".")[0] for m in failed.get("missing_modules") or []]:
        return None
    held = package_modules(root)
    return held if held and top not in held else None


def defined_symbols(path):
    """The dynamic symbols the library defines (nm -D --defined-only, versions dropped)."""
    lines = tool_lines(["nm", "-D", "--defined-only", path]) or []
    return {line.split()[-1].partition("@")[0] for line in lines if line.split()}


def exports_pyinit(path, name):
    """Whether the library defines PyInit_<name>: Python can import it as module `name`."""
    return "PyInit_" + name in defined_symbols(path)


def package_site(module):
    """The folder the imported module's top-level package sits in, or None."""
    top = sys.modules.get(module.split(".")[0])
    where = list(getattr(top, "__path__", []) or [])[:1] or ([top.__file__] if getattr(top, "__file__", None) else [])
    return os.path.dirname(os.path.realpath(where[0])) if where else None


def extension_modules(libraries, site):
    """(module name, path) of each library under `site` that Python imports as a module,
    shallowest first, then by name: where a package keeps its `_C`."""
    import importlib.machinery
    suffixes = sorted(importlib.machinery.EXTENSION_SUFFIXES, key=len, reverse=True)
    found = []
    for path in libraries:
        rel = os.path.relpath(os.path.realpath(path), site)
        suffix = next((s for s in suffixes if rel.endswith(s)), None)
        if rel.startswith("..") or suffix is None:
            continue
        name = rel[:-len(suffix)].replace(os.sep, ".")
        if all(part.isidentifier() for part in name.split(".")) and exports_pyinit(path, name.split(".")[-1]):
            found.append((name, path))
    return sorted(found, key=lambda m: (m[0].count("."), m[0]))


def missing_ops(torch, namespace, ops):
    """The ops (all asked, or none at all in the namespace) that have no schema yet."""
    wanted = ops or ops_in_namespace(torch, namespace) or []
    if not wanted:
        return None  # nothing of the namespace is there: everything is missing
    return [op for op, row in kernel_table(torch, namespace, wanted).items() if row.get("CPU") is None]


def reach_steps(zygote, args, modules, others):
    """What the child (--reach) reports: each extension module imported, then each other library
    dlopened, while ops are missing; which op each made appear. In a child: a library that aborts
    takes only the child down."""
    ended = zygote.run([["--reach", "--import", args.module, "--namespace", args.namespace, "--ops", args.ops,
                         "--modules", ",".join(m for m, _ in modules)] + others])[0]
    report = last_json_line(ended["stdout"])
    if report is None:
        err = ended["stderr"].strip().splitlines()
        return {"steps": [], "died": "exit %d%s" % (ended["returncode"], ": " + err[-1] if err else "")}
    return report


def reach(torch, args):
    """The child: import MODULE, then the modules and libraries given, in order, while ops are
    missing; each step says what it made appear."""
    import importlib
    importlib.import_module(args.module)
    wanted = [o for o in args.ops.split(",") if o]
    steps, dl = [], libc()
    for kind, target in [("import", m) for m in args.modules.split(",") if m] + [("dlopen", p) for p in args.libraries]:
        before = missing_ops(torch, args.namespace, wanted)
        if before == []:
            break
        step = {"kind": kind, "target": target, "ok": True}
        try:
            if kind == "import":
                importlib.import_module(target)
            elif not dl.dlopen(target.encode(), RTLD_NOW | RTLD_GLOBAL):
                raise OSError((dl.dlerror() or b"").decode("utf-8", "replace"))
        except Exception as e:  # noqa: BLE001 - a module that fails to import says so and the next is tried
            step.update(ok=False, error="%s: %s" % (type(e).__name__, e))
        after = missing_ops(torch, args.namespace, wanted) or []
        step["appeared"] = sorted(set(before or ops_in_namespace(torch, args.namespace) or []) - set(after))
        steps.append(step)
    return {"steps": steps}


def reach_ops(zygote, torch, args, paths):
    """Where ops are missing after the import: what brings them, done again in this process."""
    site = package_site(args.module)
    if not site or missing_ops(torch, args.namespace, [o for o in args.ops.split(",") if o]) == []:
        return None
    mapped = set(loaded_under([site]))  # what the import loaded already
    modules = [(m, p) for m, p in extension_modules(paths, site) if os.path.realpath(p) not in mapped]
    as_modules = set(p for _, p in modules)
    others = [p for p in paths if os.path.realpath(p) not in mapped and p not in as_modules]
    if not modules and not others:
        return None
    report = reach_steps(zygote, args, modules, others)
    useful = [s for s in report["steps"] if s["ok"] and s["appeared"]]
    last = report["steps"].index(useful[-1]) if useful else -1
    import importlib
    dl = libc()
    for step in report["steps"][:last + 1]:
        if step["ok"]:
            importlib.import_module(step["target"]) if step["kind"] == "import" else \
                dl.dlopen(step["target"].encode(), RTLD_NOW | RTLD_GLOBAL)
    ops = {op: (s["target"] if s["kind"] == "import" else "dlopen " + os.path.basename(s["target"]))
           for s in useful for op in s["appeared"]}
    return {"modules": [s["target"] for s in report["steps"][:last + 1] if s["ok"] and s["kind"] == "import"],
            "ops": ops, "steps": report["steps"], "died": report.get("died")}


# torch's own libraries, exactly: a package's libtorchaudio_sox.so is not one of them.
TORCH_SONAME = re.compile(r"^lib(?:torch(?:_cpu|_cuda|_cuda_linalg|_python|_global_deps|_hip)?|c10(?:_cuda|_hip)?|shm|"
                          r"caffe2_nvrtc)\.so")
# The CUDA runtime a build was linked for (libcudart.so.12): never a system library of an optional
# backend, but the CUDA the library was built for (xformers 0.0.28.post3's _C.so in a CUDA 13 torch).
CUDA_SONAME = re.compile(r"^lib(?:cudart|cublas|cublasLt|cusparse|cufft|curand|cusolver|nvrtc|nvJitLink|cudnn|nccl|"
                         r"cupti|nvToolsExt)\.so")
# torch's own GPU libraries, which a CPU-only torch does not have.
CUDA_TORCH_SONAME = re.compile(r"^lib(?:c10_cuda|torch_cuda|torch_cuda_linalg|c10_hip|torch_hip)\.so")


def mark_python_fallbacks(libraries, fell_back):
    """Marks each library that did not load and that the import replaced by Python code
    (import_fallbacks.py) with that fallback: {"module", "site", "names", "fallback"}."""
    by_path = {os.path.realpath(f["path"]): f for f in fell_back if f.get("path")}
    for lib in libraries:
        found = by_path.get(os.path.realpath(lib["path"]))
        if found and not lib["loaded"]:
            lib["python_fallback"] = {k: found[k] for k in ("module", "site", "names", "fallback")}


def mark_optional_backends(libraries, loaded_by_import, own_names, key="optional"):
    """A library that does not load for want of system libraries only (not torch's, not CUDA's),
    where the package imports without it, is an optional backend of the package (an FFmpeg or SoX
    build it tries and skips): "optional": true, for the judge to name once. Not a build for
    another torch (mark_other_torch_builds' "for_torch": featomic-torch's torch-2.13/lib/ build
    beside torch 2.14, lacking its requirement's torch-2.13 libraries), which is named as such. A library of the
    package it needs counts when that one is an optional backend too (torchaudio's
    _torio_ffmpeg6.so needs its libtorio_ffmpeg6.so, which needs libavutil.so.58). Where the import
    failed, the same libraries are marked under `key` "optional_unless_imported": the judge takes
    them as optional where the import could not be checked here (it needs the GPU driver: nixl-cu13's
    backend plugins, which lack the Azure and AWS SDKs, beside its extension that links libcuda.so.1)."""
    by_name = {os.path.basename(lib["path"]): lib for lib in libraries}

    def candidate(lib):
        missing = lib.get("missing_libraries") or []
        return bool(lib["error_kind"] == "missing_library" and missing and not lib.get("for_torch")
                    and os.path.realpath(lib["path"]) not in loaded_by_import
                    and not any(TORCH_SONAME.match(m) or CUDA_SONAME.match(m) or " of " in m for m in missing))

    optional = {name for name, lib in by_name.items() if candidate(lib)}
    changed = True
    while changed:  # drop those that need a library of the package that is not optional itself
        changed = False
        for name in sorted(optional):
            missing = by_name[name].get("missing_libraries") or []
            if any(m in own_names and m not in optional for m in missing):
                optional.discard(name)
                changed = True
    if key != "optional":
        # No import to tell what it goes on without: only what nothing else of the package needs.
        names_of = {name: {name} | set(dynamic_entries(lib["path"], "SONAME")) for name, lib in by_name.items()}
        needed = set()
        for name, lib in by_name.items():
            if name not in optional:
                needed |= set(needed_sonames(lib["path"]))
        optional = {name for name in optional if not names_of[name] & needed}
    for lib in libraries:  # each copy of a name (a wheel may ship one library at two paths)
        lib[key] = os.path.basename(lib["path"]) in optional


# A library name's variant part: bitsandbytes' libbitsandbytes_cuda121.so, _cpu.so, _rocm64.so;
# dgl's libgraphbolt_pytorch_2.2.1.so, one build per torch version (the "torch" group).
# A build per torch version may name it with dots (dgl's _pytorch_2.2.1) or as major and minor run
# together, and then the device it is for (torch-c-dlpack-ext's libtorch_c_dlpack_addon_torch26-cpu.so,
# _torch26-cuda.so: the package loads the one for torch.__version__ and torch.cuda.is_available()).
# A build per std::string ABI names its flag (torchpipe's torchpipe_opencv-abiflag0.so, -abiflag1.so:
# the package loads the one of torch._C._GLIBCXX_USE_CXX11_ABI).
VARIANT = re.compile(r"^(?P<stem>.+?)[_.-](?:(?P<variant>cpu|cuda\d*|cu\d+|rocm\d*|hip\d*|xpu\d*|mps|"
                     r"abiflag\d|cxx11abi(?:true|false|\d))|"
                     r"(?P<torch>(?:py)?torch_?\d+(?:\.\d+)*)(?:[_-](?P<device>cpu|cuda\d*|cu\d+|rocm\d*|xpu\d*))?)"
                     r"(?=[._-])", re.I)


# The NVIDIA driver's libraries: a GPU machine's driver brings them, never torch or a toolkit.
DRIVER_SONAMES = ("libcuda.so.1", "libnvidia-ml.so.1")


def mark_runtime_variants(by_name, loaded_by_import, torch_cuda=None):
    """A package that ships one build of a library per runtime (bitsandbytes' libbitsandbytes_cpu.so,
    _cuda118.so ... _cuda130.so, _rocm64.so) and loads the one that fits: where the import loaded a
    variant, a sibling variant that does not load for want of CUDA's or ROCm's runtime libraries is
    a build for another runtime, unused here ("variant_of": the one the package loaded; where the
    import failed before it loaded any, the one of this runtime that loads alone). Where the build
    named for this runtime's CUDA loads, every other GPU build of that library is for another
    runtime, loading or not (bitsandbytes' _cuda124 and _xpu2025 beside _cuda121 in a CUDA 12.1
    torch): its device code and its libraries are judged where it is used. The same for
    builds per torch version (dgl's libgraphbolt_pytorch_2.2.1.so), whose undefined symbols are
    another torch's."""
    loaded = {}
    for name, lib in by_name.items():
        m = VARIANT.match(name)
        if m and os.path.realpath(lib["path"]) in loaded_by_import:
            loaded[m.group("stem")] = name
    # In a CPU-only torch, the plain build the import loaded stands for its CUDA variants too
    # (sphericart-torch 2.0.4's libsphericart_torch.so, whose libsphericart_torch_cuda_stream.so it
    # opens only on CUDA tensors): one that lacks CUDA's or torch's CUDA libraries is unused here.
    if not torch_cuda:
        for name, lib in by_name.items():
            if not VARIANT.match(name) and os.path.realpath(lib["path"]) in loaded_by_import:
                loaded.setdefault(re.sub(r"\.so(\.\d+)*$", "", name), name)
    # Where the import loaded none of a library's builds (it failed before it did), the build named
    # for this very runtime, if it loads alone: torch's CUDA (_cuda121 for 12.1, or its major alone:
    # torch-memory-saver's _cu12 and _cu13), or _cpu for a CPU torch. Only that one: a build for
    # another CUDA that fails beside a generic one is a red. One that lacks only the NVIDIA driver's
    # libraries is this runtime's all the same: a GPU machine loads it.
    major = torch_cuda.split(".")[0] if torch_cuda else ""
    fitting = (("cuda" + torch_cuda.replace(".", ""), "cu" + torch_cuda.replace(".", ""), "cuda" + major, "cu" + major)
               if torch_cuda else ("cpu",))
    fitting_builds = {}
    for name, lib in sorted(by_name.items()):
        m = VARIANT.match(name)
        lacks_driver_only = bool(torch_cuda and lib.get("missing_libraries")
                                 and all(x in DRIVER_SONAMES for x in lib["missing_libraries"]))
        if m and (m.group("variant") or "").lower() in fitting and (lib.get("loaded") or lacks_driver_only):
            fitting_builds.setdefault(m.group("stem"), name)
    for stem, name in fitting_builds.items():
        loaded.setdefault(stem, name)
    # The build named for this runtime's CUDA, where it loads: the package picks it on a GPU
    # machine (bitsandbytes: libbitsandbytes_cuda121.so for torch's CUDA 12.1, whatever else
    # loads), so its builds for other CUDAs and other accelerators (_cuda124, _xpu2025, _rocm64)
    # are unused here even where they load, and are judged in their own runtimes.
    runtime_build = fitting_builds if torch_cuda else {}
    for name, lib in by_name.items():
        m = VARIANT.match(name)
        variant = ((m.group("variant") if m else None) or "").lower()
        if (variant and variant != "cpu" and m.group("stem") in runtime_build and name != runtime_build[m.group("stem")]
                and os.path.realpath(lib["path"]) not in loaded_by_import):
            lib["variant_of"] = runtime_build[m.group("stem")]
            lib["optional"] = False
            continue
        missing = lib.get("missing_libraries") or []
        another_torch = bool(m and m.group("torch")) and lib.get("error_kind") == "undefined_symbol"
        another_gpu = bool(lib.get("error_kind") == "missing_library" and missing
                           and not any(TORCH_SONAME.match(x) and not CUDA_TORCH_SONAME.match(x) for x in missing))
        if (m and m.group("stem") in loaded and loaded[m.group("stem")] != name and not lib.get("loaded")
                and (another_torch or another_gpu) and os.path.realpath(lib["path"]) not in loaded_by_import):
            lib["variant_of"] = loaded[m.group("stem")]
            lib["optional"] = False


# A build per version of a system library the package loads the fitting one of: torchcodec's
# libtorchcodec_core4.so ... _core8.so (and its custom_ops4 ... 8, pybind_ops4 ... 8), one per FFmpeg
# major; torchaudio's libtorio_ffmpeg4.so ... 6.so and _torio_ffmpeg4 ... 6. The number runs into
# the name, no separator (VARIANT's names have one).
SYSTEM_VERSION_BUILD = re.compile(r"^(?P<stem>.*[A-Za-z_])(?P<version>\d{1,2})(?=\.(?:so|cpython|abi3))")


def mark_system_library_builds(libraries, loaded_by_import):
    """A package that ships one build of a library per version of a system library (FFmpeg 4 ... 8)
    and whose import loaded the build that fits the one installed (torchcodec: _core5 beside
    bookworm's FFmpeg 5): a sibling build that does not load for want of that system library's
    other versions (libavutil.so.56, .58, .59) is a build for another version of it, unused here
    ("variant_of": the one the import loaded), neither an optional backend missing nor a break.
    One that lacks torch's or CUDA's libraries, or fails otherwise, stays as it is."""
    mapped = {os.path.realpath(p) for p in loaded_by_import}
    loaded = {}  # stem -> the build the import loaded
    for lib in libraries:
        m = SYSTEM_VERSION_BUILD.match(os.path.basename(lib["path"]))
        if m and os.path.realpath(lib["path"]) in mapped:
            loaded.setdefault(m.group("stem"), os.path.basename(lib["path"]))
    for lib in libraries:
        name = os.path.basename(lib["path"])
        m = SYSTEM_VERSION_BUILD.match(name)
        missing = lib.get("missing_libraries") or []
        if (not m or m.group("stem") not in loaded or loaded[m.group("stem")] == name or lib.get("loaded")
                or lib.get("variant_of") or lib.get("error_kind") != "missing_library" or not missing
                or os.path.realpath(lib["path"]) in mapped
                or any(TORCH_SONAME.match(x) or CUDA_SONAME.match(x) or " of " in x for x in missing)):
            continue
        lib["variant_of"] = loaded[m.group("stem")]
        lib["optional"] = False


def mark_loaded_by_import(libraries, loaded_by_import):
    """A library that does not load alone but that the package's import loaded: its package loads
    first what it needs (torchpipe 0.2.25's torchpipe_core-torch212-cpu-abiflag1.so needs
    omniback's libomniback.so, which lacks symbols of libtvm_ffi.so until `import tvm_ffi` has
    loaded that one, and the copy for its string ABI: omniback/lib/abiflag1/). What the import maps
    is loaded, every symbol bound (Python's dlopen is RTLD_NOW): "loaded_by_import", as its users
    get it."""
    mapped = {os.path.realpath(p) for p in loaded_by_import}
    for lib in libraries:
        if not lib.get("loaded") and os.path.realpath(lib["path"]) in mapped:
            lib["loaded_by_import"] = True


def mark_loaded_as_dependency(libraries):
    """A library that does not load alone for want of symbols, which a library of the package
    that does load needs (DT_NEEDED): dlopen(RTLD_NOW) of that one loaded it too, every symbol
    resolved in that one's scope of libraries (IPEX 2.8.0's libintel-ext-pt-python.so lacks
    torch::jit::toPyObject alone; its _C.so needs it and brings libtorch_python.so). Its users
    never load it alone: "loaded_as_dependency_of" names the one it is loaded with."""
    loaded = [lib for lib in libraries if lib.get("loaded")]
    for lib in libraries:
        if lib.get("loaded") or lib.get("error_kind") != "undefined_symbol":
            continue
        names = {os.path.basename(lib["path"])} | set(dynamic_entries(lib["path"], "SONAME"))
        for other in loaded:
            if names & set(needed_sonames(other["path"])):
                lib["loaded_as_dependency_of"] = os.path.basename(other["path"])
                break


def mark_failing_siblings_needed(libraries):
    """A library whose undefined symbols may be a sibling's: one of the package's own libraries it
    NEEDs does not load either (IPEX 2.8.0 beside another torch: _C.so lacks InitIpexBindings, which
    its libintel-ext-pt-python.so defines, and that one does not load for want of torch's symbols).
    "needs_failing": those siblings, whose failure comes first."""
    failing = {}
    for lib in libraries:
        if not lib.get("loaded"):
            for name in {os.path.basename(lib["path"])} | set(dynamic_entries(lib["path"], "SONAME")):
                failing[name] = os.path.basename(lib["path"])
    for lib in libraries:
        if lib.get("loaded") or lib.get("error_kind") != "undefined_symbol":
            continue
        needs = sorted({failing[n] for n in needed_sonames(lib["path"]) if n in failing} -
                       {os.path.basename(lib["path"])})
        if needs:
            lib["needs_failing"] = needs


def mark_dependencies_of_failing(libraries):
    """A library that lacks symbols alone which a sibling that NEEDs it defines, where that sibling
    does not load either (torch-npu 2.4.0's libnpu_profiler.so lacks
    c10_npu::option::OptionsManager::isACLGlobalLogOn, which libtorch_npu.so defines and which
    NEEDs it back; libtorch_npu.so lacks Ascend CANN's libhccl.so): its users get it only as that
    one's dependency, so that one's failure is its fate. "dependency_of_failing": those siblings;
    "defined_by_them": how many of the symbols it lacks they define."""
    failing = [lib for lib in libraries if not lib.get("loaded")]
    wanting = [lib for lib in failing
               if lib.get("error_kind") == "undefined_symbol" and not lib.get("loaded_as_dependency_of")]
    if not wanting:
        return
    needs = {id(other): set(needed_sonames(other["path"])) for other in failing}  # each read once
    defines = {}
    for lib in wanting:
        names = {os.path.basename(lib["path"])} | set(dynamic_entries(lib["path"], "SONAME"))
        lacked = {u["symbol"] for u in lib.get("undefined", [])}
        needers, defined = [], set()
        for other in failing:
            if other is lib or not names & needs[id(other)]:
                continue
            if id(other) not in defines:
                defines[id(other)] = defined_symbols(other["path"])
            theirs = lacked & defines[id(other)]
            if theirs:
                needers.append(os.path.basename(other["path"]))
                defined |= theirs
        if needers:
            lib["dependency_of_failing"] = sorted(needers)
            lib["defined_by_them"] = len(defined)


def mark_host_plugins(libraries, loaded_by_import):
    """A library that is no torch library at all: it needs none of torch's libraries and, of the
    symbols no library it needs defines, none is torch's (deepmd-kit 3.2.0's libdeepmd_lmpplugin.so,
    a LAMMPS plugin: MPI_Allgather, LAMMPS_NS::..., which the LAMMPS process that loads it
    provides). Where the package's import does not load it either, it is a plugin of another
    program: "host_plugin", for the judge to name, not a torch library to judge. One that lacks a
    torch symbol, needs a torch library, or a sibling that fails, stays judged."""
    for lib in libraries:
        if (lib.get("loaded") or lib.get("error_kind") != "undefined_symbol" or lib.get("system_runtime")
                or not lib.get("undefined_count") or lib.get("torch_undefined_count", 1)
                or lib.get("needs_failing") or lib.get("loaded_as_dependency_of") or lib.get("for_torch")
                or lib.get("variant_of") or os.path.realpath(lib["path"]) in loaded_by_import
                or any(TORCH_SONAME.match(n) for n in needed_sonames(lib["path"]))):
            continue
        lib["host_plugin"] = True


# A folder naming the torch a build is for: metatensor-torch 0.10.8's torch-2.6/lib/ (one such
# folder per torch minor in one py3-none wheel, the one of the running torch loaded at import).
TORCH_FOLDER = re.compile(r"^(?:py)?torch[_-]?(?P<version>\d+(?:\.\d+)+)$", re.I)


def torch_build_version(name):
    """The torch version a library's name says it is built for (dgl's libgraphbolt_pytorch_2.2.1.so:
    "2.2.1"), or None."""
    m = VARIANT.match(name)
    if not m or not m.group("torch"):
        return None
    digits = re.search(r"\d+(?:\.\d+)*", m.group("torch")).group(0)
    # "26" is 2.6 and "210" 2.10: torch's major version is one digit.
    return digits if "." in digits or len(digits) < 2 else "%s.%s" % (digits[0], digits[1:])


# A build per torch release named by the release alone, its parts joined by underscores: torch-tpu
# 0.2.0's env_2_11_0.so ... env_2_15_0.so and libpywrap_2_11_0_common.so (its loader imports the
# newest one not newer than the running torch). A bare number could be anything: it counts only
# where the package ships the same name with two releases or more (PER_RELEASE_STEM marks them).
TORCH_RELEASE_IN_NAME = re.compile(r"^(?P<head>.+?)_(?P<version>[12]_\d{1,2}_\d{1,2})(?P<tail>(?:_[A-Za-z]\w*)?\.so)$")
PER_RELEASE_STEM = "_<torch>"


def torch_build_of(path):
    """(stem, torch version, device) of a library built for one torch version, where its name says
    so (dgl's libgraphbolt_pytorch_2.2.1.so: "libgraphbolt", "2.2.1"; torch-tpu's env_2_12_0.so:
    "env_<torch>.so", "2.12.0") or one of the three folders above it does (metatensor-torch's
    torch-2.6/lib/libmetatensor_torch.so: "libmetatensor_torch.so", "2.6", None); else None."""
    name = os.path.basename(path)
    version = torch_build_version(name)
    if version:
        m = VARIANT.match(name)
        return m.group("stem"), version, m.group("device")
    m = TORCH_RELEASE_IN_NAME.match(name)
    if m:
        return m.group("head") + PER_RELEASE_STEM + m.group("tail"), m.group("version").replace("_", "."), None
    parts = path.split(os.sep)
    at = torch_folder_at(parts)
    return None if at is None else (name, TORCH_FOLDER.match(parts[at]).group("version"), None)


def torch_folder_at(parts):
    """The index in a path's PARTS of the torch folder among the three folders above its file, or None."""
    return next((i for i in range(len(parts) - 2, max(len(parts) - 5, -1), -1) if TORCH_FOLDER.match(parts[i])), None)


def build_label(path):
    """How a per-torch build is told apart: its name, or from its torch folder on where the name is
    every build's (torch-2.6/lib/libmetatensor_torch.so)."""
    parts = path.split(os.sep)
    at = torch_folder_at(parts)
    return os.path.basename(path) if at is None else "/".join(parts[at:])


def mark_other_torch_builds(libraries, torch_version):
    """A package that ships one build of a library per torch version (dgl 2.1: libgraphbolt_pytorch_
    2.0.0.so ... _2.2.1.so; metatensor-torch 0.10.8: torch-2.3/lib/libmetatensor_torch.so ...
    torch-2.14/lib/...); in a torch it was not built for, none fits. Each build that does not load
    here gets "for_torch" (the version its name or folder says) and "build_of" (its name without
    it: libgraphbolt), and where a build of it fits this torch ("2.2" fits 2.2.1), "variant_of":
    that one. Whatever the import does: it may fail before it loads any."""
    base = torch_version.split("+")[0]
    fits = lambda v: base == v or base.startswith(v + ".")  # noqa: E731
    stems = {}
    for lib in libraries:
        build = torch_build_of(lib["path"])
        if build:
            stems.setdefault(build[0], []).append((build, lib))
    for stem, builds in stems.items():
        if PER_RELEASE_STEM in stem and len({version for (_, version, _), _ in builds}) < 2:
            continue  # one file with a number in its name, not a build per torch
        # Every torch it has a build for, those that load here too (torch-c-dlpack-ext's torch24
        # … torch28 builds load alone in torch 2.14; its torch29 ones do not).
        every = sorted({version for (_, version, _), _ in builds}, key=lambda v: [int(p) for p in v.split(".")])
        # The build that loaded is the one this torch takes, whatever its number says: a package may
        # take the newest build not newer than the running torch (torch-tpu's env_2_14_0.so in 2.14.1).
        fitting = [lib["path"] for (_, version, _), lib in builds if fits(version) or lib.get("loaded")]
        loaded_fitting = ([lib["path"] for (_, version, _), lib in builds if fits(version) and lib.get("loaded")]
                          or [lib["path"] for _, lib in builds if lib.get("loaded")])
        for (_, version, device), lib in builds:
            if lib.get("loaded"):
                continue
            if fits(version):
                # This torch's build for another device (its -cuda beside a CPU torch, whose -cpu
                # loads): the package picks the one for the device it finds.
                if loaded_fitting and device:
                    lib["variant_of"] = build_label(loaded_fitting[0])
                    lib["optional"] = False
                continue
            lib.update(for_torch=version, build_of=stem, build_label=build_label(lib["path"]), builds_for=every)
            if fitting:
                lib["variant_of"] = build_label(loaded_fitting[0] if loaded_fitting else fitting[0])


def mark_builds_unused_by_import(libraries, loaded_by_import):
    """Builds for other torches ("for_torch") of a library none of whose builds the import, which
    worked, mapped: "unused_by_import". torch-c-dlpack-ext 0.1.5 beside torch 2.14 has builds for
    2.4 … 2.9 only, and needs none: its import returns before loading one where torch has the API
    natively. Whether something else of the package loads one later is not known here."""
    mapped = {os.path.realpath(p) for p in loaded_by_import}
    used = {build[0] for lib in libraries
            if os.path.realpath(lib["path"]) in mapped and (build := torch_build_of(lib["path"]))}
    for lib in libraries:
        if lib.get("for_torch") and lib["build_of"] not in used:
            lib["unused_by_import"] = True


def same_library(a, b):
    """One file under two names: a link to it, or a byte-identical copy."""
    return os.path.realpath(a) == os.path.realpath(b) or filecmp.cmp(a, b, shallow=False)


def find_libraries(root):
    """Every shared library under root, each once: the names of one library's soname chain
    (libfoo.so, libfoo.so.0, libfoo.so.0.8.0) are symlinks in a build tree and byte-identical
    copies in a wheel, which cannot hold links (fairseq2n 0.8.1). The name that stands for all is
    its SONAME where one of them bears it (what the others NEED: libfairseq2n.so.0), else the
    first."""
    found = []
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in ("CMakeFiles", "_deps", "googletest", "temp", "tmp"))
        kept = []
        for f in sorted(files):
            if not (f.endswith(".so") or ".so." in f):
                continue
            path = os.path.join(folder, f)
            if os.path.islink(path) and not os.path.realpath(path).startswith(os.path.realpath(root) + os.sep):
                continue  # a requirement's, linked in beside the package (build_wheel.beside_its_requirements)
            same = next((i for i, k in enumerate(kept)
                         if os.path.isfile(k) and os.path.isfile(path) and same_library(k, path)), None)
            if same is None:
                kept.append(path)
            elif f in dynamic_entries(path, "SONAME"):
                kept[same] = path
            elif (VARIANT.match(f) and not VARIANT.match(os.path.basename(kept[same]))
                  and os.path.basename(kept[same]) not in dynamic_entries(kept[same], "SONAME")):
                # The name that says which runtime it is for (torch-memory-saver 0.0.9.post1's
                # _hook_mode_preload_cu12.abi3.so, whose plain-named copy it no longer loads).
                kept[same] = path
        found += kept
    return found


# torch::Library's constructor, which TORCH_LIBRARY, TORCH_LIBRARY_FRAGMENT and TORCH_LIBRARY_IMPL
# blocks call at load time (its mangled name, C1 or C2, in the library's dynamic symbols).
TORCH_LIBRARY_CTOR = re.compile(rb"_ZN5torch7LibraryC[12]E")


def package_code(root):
    """(path, its bytes, "python" or "shared", whether it imports torch::Library's constructor) of
    each Python file and shared library under ROOT, in a stable order, each read once."""
    for folder, dirs, files in os.walk(root):
        dirs.sort()
        for f in sorted(files):
            kind = "python" if f.endswith(".py") else "shared" if f.endswith(".so") or ".so." in f else None
            if not kind:
                continue
            path = os.path.join(folder, f)
            try:
                with open(path, "rb") as fh:
                    data = fh.read()
            except OSError:
                continue
            yield path, data, kind, kind == "shared" and bool(TORCH_LIBRARY_CTOR.search(data))


def names_namespace(namespace):
    """A test of one file of package_code(): whether it defines or uses ops of NAMESPACE. Python
    that names "NS::op" (torch.library.define, custom_op, impl, register_fake), opens
    Library("NS", ...), calls torch.ops.NS.x; shared libraries holding "NS::op" schemas
    (RegisterOperators) or a TORCH_LIBRARY block for NS (torch::Library's constructor imported,
    and NS as a string of its own)."""
    ns = re.escape(namespace.encode())
    in_python = re.compile(rb"""['"]%s::\w|Library\(\s*['"]%s['"]|torch\.ops\.%s\b""" % (ns, ns, ns))
    schema, own_string = re.compile(rb"%s::\w" % ns), re.compile(rb"\x00%s\x00" % ns)

    def test(data, kind, library_ctor):
        if kind == "python":
            return bool(in_python.search(data))
        return bool(schema.search(data) or (library_ctor and own_string.search(data)))
    return test


def namespaces_named_in(root, namespaces):
    """Those of NAMESPACES that the package's own files under ROOT define or use ops of
    (names_namespace()), each file read once: what a package's import registered in torch's own
    namespaces (natten's import loads torch.distributed and flex attention: `c10d_functional`,
    `flex_lib`, …) is torch's, not the package's."""
    tests = {ns: names_namespace(ns) for ns in namespaces}
    found = set()
    for _, data, kind, library_ctor in package_code(root):
        found.update(ns for ns, test in tests.items() if ns not in found and test(data, kind, library_ctor))
        if len(found) == len(tests):
            break
    return found


def torch_defines(torch, namespaces):
    """Those of NAMESPACES that torch's own Python defines (torch.library.Library("NS", "DEF"):
    prims, quantized_decomposed), whose ops register when that module of torch is first imported:
    torch's, whichever package's import brought it in and uses them (zentorch 2.14.0.1's graph
    passes call torch.ops.quantized_decomposed and torch.ops.prims)."""
    if not namespaces:
        return set()
    defines = re.compile(rb"""Library\(\s*['"](%s)['"]\s*,\s*['"]DEF['"]"""
                         % b"|".join(re.escape(ns.encode()) for ns in sorted(namespaces)))
    found = set()
    for folder, _, files in os.walk(os.path.dirname(torch.__file__)):
        for f in files:
            if f.endswith(".py"):
                try:
                    with open(os.path.join(folder, f), "rb") as fh:
                        found.update(m.group(1).decode() for m in defines.finditer(fh.read()))
                except OSError:
                    continue
        if found == set(namespaces):
            break
    return found


def files_naming_namespace(root, namespace):
    """Whether the package's own files (under root) define or use ops of the namespace
    (names_namespace()), read in them rather than assumed. A release whose files do none of these
    defines no op there (bitsandbytes before 0.46 loads its libraries by ctypes): registering
    none is not a break of it. {"files": how many read, "naming": the first few that do}."""
    test = names_namespace(namespace)
    read, naming = 0, []
    for path, data, kind, library_ctor in package_code(root):
        read += 1
        if test(data, kind, library_ctor) and len(naming) < 5:
            naming.append(os.path.relpath(path, root))
    return {"files": read, "naming": naming}


def backend_autoload_failure(error):
    """torch >= 2.5 runs every `torch.backends` entry point at `import torch` (a device backend's
    autoload: torch_npu = torch_npu:_autoload) and raises "Failed to load the backend extension:
    NAME" when one fails: the package installed breaks `import torch` itself. Its entry point and
    the cause torch chains ("ImportError: libhccl.so: cannot open shared object file"), or None."""
    m = re.search(r"Failed to load the backend extension: ([\w.-]+?)\.(?:\s|$)", str(error))
    if not m:
        return None
    cause = error.__cause__ or error.__context__
    return {"entry_point": m.group(1),
            "cause": ("%s: %s" % (type(cause).__name__, str(cause).strip().splitlines()[0][:300])) if cause else ""}


PYTHON_EXTENSION_MODULE = re.compile(r"\.(?:cpython-\d+\w*(?:-[\w-]+)?|abi3|pypy\d*\w*(?:-[\w-]+)?)\.so$")


def torch_site_and_folders_before(search_path=None, torch_site=None):
    """(torch's own site folder, the folders found on sys.path before it, each once), or (None, [])
    where torch has no distribution (a Debian package without a RECORD)."""
    import importlib.metadata as md
    if torch_site is None:
        try:
            torch_site = str(md.distribution("torch").locate_file(""))
        except Exception:  # noqa: BLE001 - no torch distribution
            return None, []
    torch_site = os.path.realpath(torch_site)
    folders = []
    for entry in (sys.path if search_path is None else search_path):
        folder = os.path.realpath(entry or os.getcwd())
        if folder == torch_site:
            break
        if folder not in folders and os.path.isdir(folder):
            folders.append(folder)
    return torch_site, folders


def over_torch_libraries(search_path=None, torch_site=None):
    """Shared libraries that a distribution found on sys.path before torch's own folder installs at
    the same path as a distribution installed with torch: where `import torch` fails once the
    package and its requirements are in, the library torch loads may be theirs. bmtrain 1.0.1
    requires nvidia-nccl-cu11, which installs nvidia/nccl/lib/libnccl.so.2 as torch 2.13's
    nvidia-nccl-cu13 does: in one site-packages pip writes one over the other (here, the requirements'
    folder comes first on sys.path, and torch preloads the first one it finds), and import torch
    fails for NCCL 2.29's ncclCommResume. Each: {"file", "by": "NAME VERSION", "over": "NAME VERSION"}
    from the distributions' RECORD files (importlib.metadata)."""
    import importlib.metadata as md
    torch_site, folders = torch_site_and_folders_before(search_path, torch_site)
    if torch_site is None:
        return []

    def owned(folder):
        files = {}
        for dist in md.distributions(path=[folder]):
            for f in dist.files or []:
                # A Python extension module (markupsafe/_speedups.cpython-311-….so, which mindie-turbo's
                # pin MarkupSafe==3.0.2 installs over torch's MarkupSafe's) is no library torch loads.
                if re.search(r"\.so(\.\d+)*$", f.name) and not PYTHON_EXTENSION_MODULE.search(f.name):
                    files.setdefault(str(f), "%s %s" % (dist.metadata["Name"], dist.version))
        return files

    theirs = owned(torch_site)
    found = []
    for folder in folders:
        for f, by in sorted(owned(folder).items()):
            if f in theirs and not any(o["file"] == f for o in found):
                found.append({"file": f, "by": by, "over": theirs[f]})
    return found


def over_torch_distributions(search_path=None, torch_site=None):
    """Distributions found on sys.path before torch's own folder that are installed there too, in
    another release: where `import torch` fails once the package and its requirements are in, the
    module torch imports may be theirs. mindie-turbo 2.0rc1 pins typing-extensions==4.12.2; torch
    2.15 imports `Format` from typing_extensions (its 4.16.0), which 4.12.2 lacks. Each: {"name",
    "version", "over": torch's folder's version, "modules": its top-level modules}."""
    import importlib.metadata as md
    torch_site, folders = torch_site_and_folders_before(search_path, torch_site)
    if torch_site is None:
        return []
    theirs = {md_name(d): d.version for d in md.distributions(path=[torch_site])}
    found = []
    for folder in folders:
        for dist in md.distributions(path=[folder]):
            name = md_name(dist)
            if name in theirs and theirs[name] != dist.version and not any(o["name"] == name for o in found):
                modules = sorted({str(f).split("/")[0].split(".")[0] for f in dist.files or []
                                  if not str(f).split("/")[0].endswith((".dist-info", ".data")) and ".." not in str(f)})
                found.append({"name": dist.metadata["Name"], "version": dist.version, "over": theirs[name],
                              "modules": modules})
    return found


def md_name(dist):
    return re.sub(r"[-_.]+", "-", (dist.metadata["Name"] or "").lower())


def arguments():
    ap = argparse.ArgumentParser()
    ap.add_argument("--namespace", default="")
    ap.add_argument("--ops", default="")
    ap.add_argument("--find", default="", help="also load every .so under this folder")
    ap.add_argument("--import", dest="module", default="",
                    help="then import this Python module, as users do: kernels it registers from Python count")
    ap.add_argument("--just-load", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--table-after-load", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--reach", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--modules", default="", help=argparse.SUPPRESS)
    ap.add_argument("libraries", nargs="*")
    return ap


def main():
    args = arguments().parse_args()
    out = {"torch": None, "torch_cuda": None, "libraries": [], "namespace": args.namespace or None,
           "ops": {}, "served_by": {}, "error": None}
    saved = os.dup(1)
    os.dup2(2, 1)  # anything a library prints at load time goes to stderr; stdout is the JSON
    zygote = None
    try:
        try:
            import torch
            out["torch"], out["torch_cuda"] = torch.__version__, torch.version.cuda
            ops_before = registered_ops(torch)  # torch's own: what the package adds is the rest
        except Exception as e:  # noqa: BLE001
            out["error"] = "import torch: %s: %s" % (type(e).__name__, e)
            autoload = backend_autoload_failure(e)
            if autoload:
                out["backend_autoload"] = autoload
            replaced = over_torch_libraries()
            if replaced:
                out["over_torch_libraries"] = replaced
            older = over_torch_distributions()
            if older:
                out["over_torch_distributions"] = older
            return out
        # Before anything of the package is loaded: each child starts with torch alone.
        zygote = Zygote(lambda argv: helper(arguments().parse_args(argv)))
        paths = list(args.libraries) + (find_libraries(args.find) if args.find else [])
        if not paths and not args.module:
            out["error"] = "no library to load (none built?)"
        out["libraries"] = load_all_isolated(zygote, paths, args.find or None)
        mark_other_torch_builds(out["libraries"], out["torch"])
        mark_loaded_as_dependency(out["libraries"])
        mark_failing_siblings_needed(out["libraries"])
        mark_dependencies_of_failing(out["libraries"])
        if args.module:
            # As users get it: the import alone chooses which libraries to load (in a child of this
            # process: an import that kills its process must not take this report with it).
            said = tempfile.TemporaryFile(mode="w+b")
            crashed = survive_import(zygote, said)
            out["import"] = dict(crashed, module=args.module) if crashed else import_module(args.module, said)
            held = import_not_in_package(out["import"], args.module, args.find) if args.find else None
            if held:
                out["import"]["package_modules"] = held
            by_import = loaded_under([os.path.dirname(p) for p in paths]) if out["import"]["ok"] else []
            mark_loaded_by_import(out["libraries"], by_import)
            if out["import"]["ok"]:
                mark_python_fallbacks(out["libraries"], out["import"].get("fallbacks", []))
                mark_builds_unused_by_import(out["libraries"], by_import)
                mark_optional_backends(out["libraries"], by_import, set(os.path.basename(p) for p in paths))
                built = compiled_at_import(torch)
                if built:
                    out["import"]["compiled_at_import"] = built
            else:
                mark_optional_backends(out["libraries"], by_import, set(os.path.basename(p) for p in paths),
                                       key="optional_unless_imported")
            # By build_label: a package with a build per torch folder has one name in each.
            mark_runtime_variants({build_label(lib["path"]): lib for lib in out["libraries"]}, by_import,
                                  out["torch_cuda"])
            mark_system_library_builds(out["libraries"], by_import)
            mark_host_plugins(out["libraries"], by_import)
        else:
            mark_host_plugins(out["libraries"], [])
            dl = libc()
            for lib in out["libraries"]:
                if lib["loaded"]:
                    dl.dlopen(lib["path"].encode(), RTLD_NOW | RTLD_GLOBAL)
        if args.namespace and args.module and out["import"]["ok"]:
            reached = reach_ops(zygote, torch, args, paths)
            if reached:
                out["reached"] = reached
        if not args.namespace:
            # Nobody declared its namespace: what it registered is said, so that a package with ops
            # (torch-cluster's `torch_cluster::fps`, …) is never taken for a plain Python extension.
            added = namespaces_added(torch, ops_before)
            own = namespaces_named_in(args.find, added) if args.find else set(added)
            own -= torch_defines(torch, own)
            out["namespaces_added"] = {ns: ops for ns, ops in added.items() if ns in own}
        if args.namespace:
            ops = [o for o in args.ops.split(",") if o] or ops_in_namespace(torch, args.namespace) or []
            out["ops"] = kernel_table(torch, args.namespace, ops)
            out["served_by"] = served_by(torch, args.namespace, ops)
            out["registered_at"] = registration_sites(torch, args.namespace, ops)
            if not out["ops"] and args.find:
                out["namespace_in_files"] = files_naming_namespace(args.find, args.namespace)
            if args.module:
                # Kernels missing when only the libraries the import loaded are dlopened were
                # registered from Python.
                roots = [os.path.dirname(p) for p in paths] + ([args.find] if args.find else [])
                before = cpp_only_kernels(zygote, loaded_under(roots), args.namespace, list(out["ops"]))
                out["from_python"] = {op: [k for k, v in row.items() if v and not before.get(op, {}).get(k)]
                                      for op, row in out["ops"].items()}
        return out
    finally:
        if zygote:
            zygote.close()
        sys.stdout.flush()
        os.dup2(saved, 1)


def helper(args):
    """The children of load_all_isolated(), cpp_only_kernels() and reach_steps(), forked by the
    zygote after `import torch`."""
    import torch  # noqa: F401 - libraries resolve torch's symbols from it, as after `import torch`
    if args.reach:
        return reach(torch, args)
    dl = libc()
    if args.just_load:
        before = registered_ops(torch)
        out = load_one(dl, args.libraries[0], args.find or None)
        added = namespaces_added(torch, before) if out["loaded"] else {}
        if added:
            out["registers"] = added  # what loading it (and the siblings it needed) adds to the dispatcher
        return out
    for path in args.libraries:
        dl.dlopen(path.encode(), RTLD_NOW | RTLD_GLOBAL)
    return kernel_table(torch, args.namespace, [o for o in args.ops.split(",") if o])


if __name__ == "__main__":
    print(json.dumps(main()))
    sys.stdout.flush()
