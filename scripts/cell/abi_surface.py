"""The two sides of a load, read without loading anything into torch (docs/stable-abi.md): what a
library needs, and what a torch runtime offers. The harness predicts each build x runtime pair
from them (crossload/load_prediction.h), so a load matrix can be told before, or without, running it.

    abi_surface.py --imports LIB...   what each library needs:
        {"imports": [{"library", "needed": [soname...], "undefined": [[name, version]...],
                      "runpath": [folder...]}]}
        (weak symbols left out; version "" where the symbol has none; runpath: its RUNPATH or
        RPATH folders, $ORIGIN ones left out)
    abi_surface.py --exports          what this cell's torch runtime offers, seen after
        `import torch` as a user's process sees it:
        {"exports": {"sonames": [...], "versions": [...], "symbols": [fnv64 hex...],
                     "torch_libraries": [...], "folders": {folder: [soname...]}}}
        sonames: every library loaded, and every one the dynamic linker finds by name (its
        cache and default folders);
        versions: every symbol version those libraries define (GLIBCXX_3.4.30, libcudart.so.12…);
        symbols: FNV-1a 64 (the harness's Fnv64) of each dynamic symbol the loaded libraries
        define (torch's C++ API and stable C shim, libstdc++, libc…): an unversioned reference
        binds to any of them;
        folders: the libraries in the folders a build's RUNPATH may name here (the cell
        contract's CUDA root, torch's lib/, the nvidia-* wheels' lib/).
Prints one JSON object; a failure is {"error": "..."}."""
import glob
import json
import os
import re
import subprocess
import sys

TORCH_LIBRARY = re.compile(r"/lib(torch|c10|shm)[A-Za-z0-9_]*\.so(\.[0-9.]+)?$")
DEFAULT_DIRS = ("/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib64", "/usr/lib64", "/lib", "/usr/lib")
FNV_OFFSET, FNV_PRIME, MASK = 0xCBF29CE484222325, 0x100000001B3, (1 << 64) - 1


def fnv64(text):
    """The harness's Fnv64().add(text).hex(): FNV-1a over the bytes, then a 0xff separator."""
    h = FNV_OFFSET
    for c in text.encode("utf-8"):
        h = ((h ^ c) * FNV_PRIME) & MASK
    h = ((h ^ 0xFF) * FNV_PRIME) & MASK
    return "%016x" % h


def tool(argv):
    return subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True,
                          check=True).stdout


def needed(lib, dynamic=None):
    """NEEDED sonames; `dynamic`: `readelf -d LIB`'s output when the caller has it already."""
    dynamic = tool(["readelf", "-d", lib]) if dynamic is None else dynamic
    return re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", dynamic)


def runpath(dynamic):
    """RUNPATH/RPATH folders in `readelf -d`'s output, $ORIGIN ones left out."""
    found = re.findall(r"\((?:RUNPATH|RPATH)\)\s+Library r(?:un)?path: \[([^\]]*)\]", dynamic)
    return [d for entry in found for d in entry.split(":") if d and "$ORIGIN" not in d]


def libraries_in(folder):
    return [n for n in os.listdir(folder) if n.startswith("lib") and ".so" in n]


def split_version(symbol):
    """'name@GLIBCXX_3.4' / 'name@@V' -> (name, version); 'name' -> (name, '')."""
    name, _, version = symbol.partition("@")
    return name, version.lstrip("@")


def imports(libs):
    out = []
    for lib in libs:
        undefined = []
        for line in tool(["nm", "-D", "--undefined-only", lib]).splitlines():
            parts = line.split()
            if len(parts) == 2 and parts[0] == "U":
                undefined.append(list(split_version(parts[1])))
        dynamic = tool(["readelf", "-d", lib])
        out.append({"library": lib, "needed": needed(lib, dynamic), "undefined": undefined, "runpath": runpath(dynamic)})
    return {"imports": out}


def loaded_libraries():
    paths = set()
    with open("/proc/self/maps", encoding="utf-8") as f:
        for line in f:
            path = line.split()[-1] if len(line.split()) >= 6 else ""
            if ".so" in os.path.basename(path) and os.path.isfile(path):
                paths.add(os.path.realpath(path))
    return sorted(paths)


def soname(lib):
    m = re.search(r"\(SONAME\)\s+Library soname: \[([^\]]+)\]", tool(["readelf", "-d", lib]))
    return m.group(1) if m else os.path.basename(lib)


def version_definitions(lib):
    return re.findall(r"Name: (\S+)", tool(["readelf", "-V", "--wide", lib]).split("Version needs section")[0])


def exports():
    import torch  # noqa: F401,PLC0415 - the runtime as a user's process has it
    libs = loaded_libraries()
    sonames, versions, symbols, torch_libs = set(), set(), set(), []
    for lib in libs:
        sonames.add(soname(lib))
        sonames.add(os.path.basename(lib))
        versions.update(version_definitions(lib))
        if TORCH_LIBRARY.search(lib):
            torch_libs.append(lib)
        for line in tool(["nm", "-D", "--defined-only", lib]).splitlines():
            parts = line.split()
            if len(parts) == 3:
                symbols.add(fnv64(split_version(parts[2])[0]))
    # Libraries the dynamic linker would find by name (a build may need one torch did not load):
    # its cache, then its default folders (where a -dev package's libfoo.so link lives).
    for folder in DEFAULT_DIRS:
        if os.path.isdir(folder):
            sonames.update(libraries_in(folder))
    try:
        for line in tool(["ldconfig", "-p"]).splitlines()[1:]:
            name = line.strip().split(" ", 1)[0]
            if name:
                sonames.add(name)
    except (OSError, subprocess.CalledProcessError):
        pass
    return {"exports": {"sonames": sorted(sonames), "versions": sorted(versions), "symbols": sorted(symbols),
                        "torch_libraries": torch_libs, "folders": runpath_folders(torch_libs)}}


def runpath_folders(torch_libs):
    """{folder: sonames} for the folders builds' RUNPATHs name in cells (cell-contract.md)."""
    roots = {os.environ.get("OPMATRIX_CUDA_ROOT", ""), os.environ.get("CUDA_HOME", ""), "/opt/cuda", "/usr/local/cuda"}
    folders = {os.path.join(r, sub) for r in roots if r for sub in ("lib", "lib64")}
    folders.update(os.path.dirname(lib) for lib in torch_libs)
    import torch  # noqa: PLC0415 - already imported by exports()
    site = os.path.dirname(os.path.dirname(torch.__file__))
    folders.update(glob.glob(os.path.join(site, "nvidia", "*", "lib")))
    folders.add(os.path.join(os.path.dirname(torch.__file__), "lib"))
    out = {}
    for folder in sorted(folders):
        if os.path.isdir(folder):
            out[folder] = sorted(libraries_in(folder))
            # The path a build recorded may be the unresolved one (/opt/cuda/lib -> lib64).
            real = os.path.realpath(folder)
            if real != folder:
                out.setdefault(real, out[folder])
    return out


def main(argv):
    try:
        if argv[:1] == ["--imports"]:
            return imports(argv[1:])
        if argv[:1] == ["--exports"]:
            return exports()
        return {"error": "usage: abi_surface.py --imports LIB... | --exports"}
    except Exception as e:  # noqa: BLE001 - the harness reads JSON, never a traceback
        return {"error": "%s: %s" % (type(e).__name__, e)}


if __name__ == "__main__":
    print(json.dumps(main(sys.argv[1:])))
    sys.stdout.flush()
